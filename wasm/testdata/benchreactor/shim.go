package main

// A hand-written stand-in for the guest library: the reactor ABI of
// wasm/doc.go in a few lines, so the host's tests need nothing outside
// testdata.

import "unsafe"

//go:wasmimport venue call
func venueCall(ptr, n uint32) int64

//go:wasmimport venue result
func venueResult(ptr, n uint32) uint32

//go:wasmimport venue log
func venueLog(level, ptr, n uint32)

var (
	inBuf  []byte // the buffer venue_alloc handed out, kept reachable
	outBuf []byte // the last output or error, valid until the next call
)

//go:wasmexport venue_abi_1
func abi1() {}

//go:wasmexport venue_alloc
func alloc(size uint32) uint32 {
	inBuf = make([]byte, size)
	return addr(inBuf)
}

//go:wasmexport venue_run
func run(opPtr, opLen, inPtr, inLen uint32) uint64 {
	out, err := handle(string(at(opPtr, opLen)), at(inPtr, inLen))
	if err != nil {
		outBuf = []byte(err.Error())
		return uint64(addr(outBuf))<<32 | uint64(len(outBuf)) | 1<<31
	}
	outBuf = out
	return uint64(addr(outBuf))<<32 | uint64(len(outBuf))
}

// hostCall makes one venue.call and collects its result.
func hostCall(req []byte) ([]byte, bool) {
	n := venueCall(addr(req), uint32(len(req)))
	ok := n >= 0
	if !ok {
		n = -n
	}
	buf := make([]byte, n)
	venueResult(addr(buf), uint32(n))
	return buf, ok
}

func logText(level uint32, s string) {
	b := []byte(s)
	venueLog(level, addr(b), uint32(len(b)))
}

func at(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
}

func addr(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}
