package wasm

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero/api"
)

// FuzzGuestMemory hands the host's guest-memory helpers, and the venue host
// functions themselves, hostile pointer and length pairs against a
// one-page memory. Nothing may panic but a host function's deliberate
// trap, and nothing may be read or written outside the memory. The seed
// corpus is in testdata/fuzz/FuzzGuestMemory.
func FuzzGuestMemory(f *testing.F) {
	h := mustHost(f, Config{})
	mod := mustSmallInstance(f, h)
	mem := mod.Memory()
	f.Fuzz(func(t *testing.T, ptr, n uint32, data []byte) {
		size := uint64(mem.Size())
		fits := uint64(ptr)+uint64(n) <= size
		b, err := readGuest(mem, ptr, n, maxHostIO)
		if (err == nil) != (fits && n <= maxHostIO) {
			t.Fatalf("readGuest(%#x, %d) = %d bytes, %v; the memory has %d", ptr, n, len(b), err, size)
		}
		if err == nil && uint32(len(b)) != n {
			t.Fatalf("readGuest(%#x, %d) returned %d bytes", ptr, n, len(b))
		}
		err = writeGuest(mem, ptr, data)
		if (err == nil) != (uint64(ptr)+uint64(len(data)) <= size) {
			t.Fatalf("writeGuest(%#x, %d bytes) = %v; the memory has %d", ptr, len(data), err, size)
		}
		if err == nil && len(data) > 0 {
			if got, _ := mem.Read(ptr, uint32(len(data))); string(got) != string(data) {
				t.Fatal("writeGuest wrote something else")
			}
		}
		for _, fn := range []api.GoModuleFunc{h.hostCall, h.hostResult, h.hostLog} {
			hostFunc(t, fn, mod, []uint64{uint64(ptr), uint64(n), uint64(n)}, data)
		}
	})
}

// hostFunc calls fn as a guest would, with a result pending so that
// venue.result gets as far as the memory. Only a hostTrap may escape it.
func hostFunc(t *testing.T, fn api.GoModuleFunc, mod api.Module, stack []uint64, pending []byte) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*hostTrap); !ok {
				t.Fatalf("host function panicked: %v", r)
			}
		}
	}()
	c := &callState{pending: pending, hasMore: true}
	fn(withCall(context.Background(), c), mod, stack)
}

// mustSmallInstance instantiates a module that has one page of memory and
// nothing else.
func mustSmallInstance(tb testing.TB, h *Host) api.Module {
	tb.Helper()
	ctx := context.Background()
	cm, err := h.box.rt.CompileModule(ctx, buildModule(nil, nil, 1))
	if err != nil {
		tb.Fatal(err)
	}
	mod, err := h.box.rt.InstantiateModule(ctx, cm, h.modCfg)
	if err != nil {
		tb.Fatal(err)
	}
	return mod
}
