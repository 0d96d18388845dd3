package wasm

import (
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Every pointer and length a guest hands the host is hostile until checked:
// these helpers are the only place the host touches guest memory on the
// guest's say-so. They never panic, and they report a range that is not
// wholly inside the memory instead of reading or writing part of it.

// readGuest returns a view of the n bytes at ptr. The view aliases guest
// memory: use it before the guest runs again.
func readGuest(mem api.Memory, ptr, n, limit uint32) ([]byte, error) {
	if n > limit {
		return nil, fmt.Errorf("length %d exceeds the limit of %d bytes", n, limit)
	}
	if mem == nil {
		return nil, fmt.Errorf("the module has no memory")
	}
	b, ok := mem.Read(ptr, n)
	if !ok {
		return nil, outside(mem, ptr, uint64(n))
	}
	return b, nil
}

// writeGuest copies data to ptr.
func writeGuest(mem api.Memory, ptr uint32, data []byte) error {
	if mem == nil {
		return fmt.Errorf("the module has no memory")
	}
	if !mem.Write(ptr, data) {
		return outside(mem, ptr, uint64(len(data)))
	}
	return nil
}

// inside reports whether the n bytes at ptr lie in mem.
func inside(mem api.Memory, ptr uint32, n uint64) bool {
	return uint64(ptr)+n <= uint64(mem.Size())
}

func outside(mem api.Memory, ptr uint32, n uint64) error {
	return fmt.Errorf("%d bytes at %#x are outside the module's memory of %d bytes", n, ptr, mem.Size())
}
