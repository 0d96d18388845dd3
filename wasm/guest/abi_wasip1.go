//go:build wasip1

package guest

import (
	"unsafe"
)

// The reactor ABI of wasm/doc.go. The host writes a call's arguments into
// the buffer venue_alloc returns, calls venue_run, and reads the output at
// the pointer venue_run returns. Both buffers are package variables: Go's
// garbage collector does not move heap objects but frees unreferenced ones,
// and the host holds raw pointers into them that the collector cannot see.

// argBuf is the buffer handed out by venue_alloc. The host keeps writing
// into it, without asking again, for as long as it is large enough, so it
// must stay referenced until the next venue_alloc replaces it.
var argBuf []byte

// outBuf holds the last venue_run's output (or error text). The host reads
// it after venue_run has returned, when nothing on the guest's stack refers
// to it any more; without this reference the next allocation could reuse
// its memory before the host has copied it out.
var outBuf []byte

// minArgBuf is the smallest buffer venue_alloc hands out, so that a run of
// small calls settles on one buffer at once.
const minArgBuf = 4096

// errorBit marks an error in the length half of venue_run's result.
const errorBit = 1 << 31

//go:wasmexport venue_abi_1
func abiVersion() {}

//go:wasmexport venue_alloc
func venueAlloc(size int32) int32 {
	if size < 0 {
		panic("venue_alloc: negative size") // traps: the host is broken
	}
	if argBuf == nil || len(argBuf) < int(size) {
		argBuf = make([]byte, max(int(size), minArgBuf))
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(argBuf))))
}

//go:wasmexport venue_run
func venueRun(opPtr, opLen, inPtr, inLen int32) int64 {
	op, okOp := argBytes(opPtr, opLen)
	in, okIn := argBytes(inPtr, inLen)
	if !okOp || !okIn {
		return result([]byte("venue_run: arguments lie outside the venue_alloc buffer"), true)
	}
	if len(in) == 0 {
		in = []byte("{}")
	}
	if fn, ok := forwards[string(op)]; ok {
		return forward(fn, in)
	}
	// Copy the input: a handler may keep parts of it (json.RawMessage
	// fields), and the host overwrites argBuf on the next call.
	out, err := run(string(op), append([]byte(nil), in...))
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = "operation failed"
		}
		return result([]byte(msg), true)
	}
	return result(out, false)
}

// fwdReq and fwdRes are the request and result buffers of every forwarded
// operation (RegisterForward), reused from call to call. fwdRes may be the
// output the host reads after venue_run returns; the next venue_run, which
// overwrites it, comes only after the host has copied it out.
var fwdReq, fwdRes []byte

// forward runs the operation that is the host function fn on in (which
// lies in argBuf: it is copied into the request before anything else is
// written there).
func forward(fn string, in []byte) int64 {
	req, err := appendForward(fwdReq[:0], fn, in)
	if err != nil {
		return result([]byte(err.Error()), true)
	}
	fwdReq = req
	res, failed := hostCall(req, fwdRes)
	if cap(res) > cap(fwdRes) {
		fwdRes = res[:0]
	}
	return result(res, failed)
}

// argBytes returns the n bytes at ptr, which must lie inside argBuf: a
// pointer anywhere else is a host bug, and memory the guest may reuse.
func argBytes(ptr, n int32) ([]byte, bool) {
	if n == 0 {
		return nil, true
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(argBuf)))
	p := uintptr(uint32(ptr))
	if n < 0 || p < base || p+uintptr(n) > base+uintptr(len(argBuf)) {
		return nil, false
	}
	return argBuf[p-base : p-base+uintptr(n)], true
}

// result keeps b alive in outBuf and packs it as ptr<<32 | len, with the
// error bit set in len when b is an error message.
func result(b []byte, failed bool) int64 {
	if len(b) >= errorBit {
		b, failed = []byte("operation output exceeds 2 GiB"), true
	}
	outBuf = b
	n := uint64(len(b))
	if failed {
		n |= errorBit
	}
	ptr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	return int64(ptr<<32 | n)
}

//go:wasmimport venue call
func venueCall(ptr unsafe.Pointer, size int32) int64

//go:wasmimport venue result
func venueResult(ptr unsafe.Pointer, size int32) int32

//go:wasmimport venue log
func venueLog(level int32, ptr unsafe.Pointer, size int32)

// hostCall sends the request to venue.call and fetches the pending result
// with venue.result, into buf if it is large enough; failed reports a
// negative length, whose bytes are the host's error message.
func hostCall(req, buf []byte) (res []byte, failed bool) {
	n := venueCall(unsafe.Pointer(unsafe.SliceData(req)), int32(len(req)))
	if n < 0 {
		n, failed = -n, true
	}
	if n >= errorBit {
		return []byte("venue.call returned an impossible length"), true
	}
	if n == 0 {
		return nil, failed
	}
	if int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	res = buf[:n]
	got := venueResult(unsafe.Pointer(unsafe.SliceData(res)), int32(n))
	return res[:max(0, min(int(got), len(res)))], failed
}

func hostLog(level int32, msg string) {
	venueLog(level, unsafe.Pointer(unsafe.StringData(msg)), int32(len(msg)))
}
