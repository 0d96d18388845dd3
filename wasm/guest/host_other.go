//go:build !wasip1

package guest

// Outside wasip1 there is no venue host: Call fails and Log is silent, so
// that guest code still compiles, vets and unit-tests natively.

func hostCall(_, _ []byte) ([]byte, bool) {
	return []byte("venue host calls need a wasm host (GOOS=wasip1)"), true
}

func hostLog(int32, string) {}
