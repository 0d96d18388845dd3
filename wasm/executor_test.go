package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestHost_Builtin checks the venue's own module: refused at construction
// when too large, and failing every call when it cannot run.
func TestHost_Builtin(t *testing.T) {
	h := mustHost(t, Config{MaxModuleSize: 1 << 20})
	if _, err := h.Builtin(make([]byte, 1<<20+1)); venue.ErrorCode(err) != venue.ETOOLARGE {
		t.Errorf("a module over the limit: %v, want too_large", err)
	}
	for _, tc := range []struct {
		name   string
		module []byte
		want   string
	}{
		{"does not compile", []byte("not wasm"), "module does not compile: malformed module: invalid magic number or version: this is no WebAssembly binary module, which starts with the bytes \\0asm and version 1 (upload the compiled .wasm file)"},
		{"is a command", buildModule(nil, []wfunc{{export: "_start"}}, 1), "the venue's own operations must be a reactor module, not a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := h.Builtin(tc.module)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				_, err := call(context.Background(), x, `{}`)
				if venue.ErrorCode(err) != venue.EINVALID || err.Error() != tc.want {
					t.Errorf("error %v, want invalid %q", err, tc.want)
				}
			}
		})
	}
}

// TestHost_UploadedLoads checks that load's errors fail the call as they
// are, and that load runs once per operation asset.
func TestHost_UploadedLoads(t *testing.T) {
	h := mustHost(t, Config{})
	mod := mustGuest(t, "creactor")
	var loads atomic.Int32
	x := h.Uploaded(func(_ context.Context, _ *runtime.Env, op *venue.Operation) ([]byte, error) {
		loads.Add(1)
		if op.Title == "missing" {
			return nil, venue.Errorf(venue.ENOTFOUND, "Operation has no module")
		}
		return mod, nil
	})
	missing := &venue.Operation{Name: "wasm", Title: "missing", Asset: venue.AssetID{1}}
	if _, err := x.Execute(context.Background(), missing, json.RawMessage(`{}`), nil); venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Errorf("error %v, want the loader's not_found", err)
	}
	op := &venue.Operation{Name: "wasm", Asset: venue.AssetID{2}}
	for range 3 {
		if _, err := x.Execute(context.Background(), op, json.RawMessage(`{"a":1}`), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (one per asset)", n)
	}
}

// TestHost_Concurrent runs many jobs of two callers at once through the
// engine, across both ABIs, for the race detector's sake.
func TestHost_Concurrent(t *testing.T) {
	h := mustHarness(t, Config{PoolSize: 2}, runtime.Config{}, "goreactor", "gocommand", "creactor")
	var wg sync.WaitGroup
	for i := range 24 {
		ctx := h.alice
		if i%2 == 1 {
			ctx = h.bob
		}
		op := []string{"v/test/wasm/goreactor", "v/test/wasm/creactor", "v/test/wasm/gocommand", "v/test/tb/add"}[i%4]
		wg.Go(func() {
			in := fmt.Sprintf(`{"a":%d,"b":1,"name":"n"}`, i)
			j, err := h.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(in), Wait: time.Minute})
			if err != nil || j.Status != venue.StatusComplete {
				t.Errorf("%s %s: %+v, %v", op, in, j, err)
				return
			}
			wantContains(t, op+" output", string(j.Output), fmt.Sprintf(`"sum":%d`, i+1))
		})
	}
	wg.Wait()
	// Five pools: each reactor module for each caller, and the builtin.
	if _, live := h.host.pools.counts(); live > 5*2 {
		t.Errorf("%d live instances after the burst, want at most PoolSize per pool", live)
	}
}
