package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/gridvenue/venue/ops"
	"github.com/gridvenue/venue/wasm"
)

// TestMain compiles the built-in module into the compile cache the tests'
// venues share before any of them starts. On a cold cache every venue
// would compile it anew until one compile ended: under the race detector,
// beside other test packages on two cores, a compile outlasted a client's
// 30 s timeout, and each test's venue started another.
func TestMain(m *testing.M) {
	if err := warmWasmCache(defaultConfig().wasmCache()); err != nil {
		fmt.Fprintln(os.Stderr, "warm the wasm cache:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func warmWasmCache(dir string) error {
	if dir == "" {
		return nil
	}
	ctx := context.Background()
	h, err := wasm.New(ctx, wasm.Config{CacheDir: dir})
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	_, err = h.Compile(ctx, ops.Module())
	return err
}
