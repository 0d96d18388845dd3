package wasm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// idle reports whether g has all its n tokens and nobody waits.
func (g *cpuGate) idle(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.free == n && len(g.queue) == 0 && g.waiting.Load() == 0
}

// TestHost_TokensComeBackOnEveryPath: however a call of uploaded code
// ends (a guest's trap, a host function's trap, a crash in _initialize,
// venue_alloc growing the buffer, output too large, memory exhausted, a
// deadline or a cancel while computing, asleep, or waiting for the
// token), the gate ends with its one token, and the next call runs.
func TestHost_TokensComeBackOnEveryPath(t *testing.T) {
	initTrap := buildModule(nil, []wfunc{
		{export: "venue_abi_1"},
		{export: "_initialize", body: []byte{0x00}}, // unreachable
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(2)},
	}, 1)
	h := mustHarnessWith(t, Config{Processors: 1, MaxOutput: 1 << 10, MemoryLimitPages: 512},
		runtime.Config{JobTimeout: 1500 * time.Millisecond, Workers: 16}, map[string][]byte{"inittrap": initTrap}, "goreactor", "gocommand")
	g := h.host.gate
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
	big := `{"text":"` + strings.Repeat("x", 200<<10) + `"}` // grows the buffer: venue_alloc runs first
	for _, tc := range []struct{ name, op, input string }{
		{"a Go panic", "goreactor", `{"do":"nilderef"}`},
		{"venue.call with a bad pointer", "goreactor", `{"do":"badptr","fn":"call","ptr":4294967000,"len":100}`},
		{"venue.result into a bad buffer", "goreactor", `{"do":"badptr","fn":"result","ptr":4294967000,"len":100}`},
		{"a trap in _initialize", "inittrap", `{}`},
		{"output too large", "goreactor", `{"do":"bigoutput","size":4096}`},
		{"a command's output too large", "gocommand", `{"do":"bigoutput","size":4096}`},
		{"memory exhausted", "goreactor", `{"do":"alloc","size":1}`},
		{"a deadline while looping", "goreactor", `{"do":"loop"}`},
		{"a command's deadline while looping", "gocommand", `{"do":"loop"}`},
		{"a deadline asleep", "goreactor", `{"do":"sleep","size":5000}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if j := h.run(t, h.bob, "v/test/wasm/"+tc.op, tc.input); j.Status != venue.StatusFailed {
				t.Errorf("%s %q, want FAILED", j.Status, j.Error)
			}
			waitFor(t, func() bool { return g.idle(1) })
			h.mustComplete(t, h.alice, "v/test/wasm/goreactor", big)
			waitFor(t, func() bool { return g.idle(1) })
		})
	}
	t.Run("deadlines while waiting for the token", func(t *testing.T) {
		g.acquire(nil) // uploaded code has no processor
		for _, in := range []string{`{"a":1}`, big} {
			for _, op := range []string{"goreactor", "gocommand", "inittrap"} {
				if j := h.run(t, h.bob, "v/test/wasm/"+op, in); j.Status != venue.StatusFailed {
					t.Errorf("%s: %s %q", op, j.Status, j.Error)
				}
			}
		}
		waitFor(t, func() bool { return g.idle(0) })
		g.release()
		h.mustComplete(t, h.bob, "v/test/wasm/goreactor", big)
	})
	t.Run("cancels while computing and asleep", func(t *testing.T) {
		var ids []venue.JobID
		for _, in := range []string{`{"do":"loop"}`, `{"do":"sleep","size":5000}`, `{"do":"spin","size":5000}`} {
			ids = append(ids, h.start(t, h.alice, "v/test/wasm/goreactor", in))
		}
		ids = append(ids, h.start(t, h.bob, "v/test/wasm/gocommand", `{"do":"loop"}`))
		time.Sleep(200 * time.Millisecond)
		for _, id := range ids {
			ctx := h.alice
			if id == ids[len(ids)-1] {
				ctx = h.bob
			}
			if _, err := h.Cancel(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, func() bool { return g.idle(1) })
		h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
	})
	waitFor(t, func() bool { return g.idle(1) })
}

// TestHost_LongHostWorkTakesTurns: a guest that loops over a WASI call
// whose work it sizes (random_get of 16 MiB, some 50 ms; fd_read over a
// million empty buffers, a few ms), which counts as one check per
// iteration, hands its processor on and stops at its deadline like one
// that computes: it reached $refuel only every 16,384 calls, minutes during
// which it kept the processor and ran past its deadline. So did one
// looping over path_unlink_file of a 16 MiB path, which the listener
// skipped, until it listened to every WASI call but the cheap ones.
func TestHost_LongHostWorkTakesTurns(t *testing.T) {
	imports := []wimport{
		{mod: "wasi_snapshot_preview1", name: "random_get", params: []byte{tI32, tI32}, results: []byte{tI32}},
		{mod: "wasi_snapshot_preview1", name: "fd_read", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI32}},
		{mod: "wasi_snapshot_preview1", name: "path_unlink_file", params: []byte{tI32, tI32, tI32}, results: []byte{tI32}},
	}
	loop := func(call ...byte) []byte { // loop  call  drop  br 0  end
		body := append(append([]byte{0x03, 0x40}, call...), 0x1a, 0x0c, 0x00, 0x0b)
		return buildModule(imports, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: append(body, i64Const(2)...)},
		}, 257)
	}
	args := func(fn byte, v ...int32) (b []byte) {
		for _, x := range v {
			b = append(b, i32Const(x)...)
		}
		return append(b, 0x10, fn)
	}
	for _, tc := range []struct {
		name string
		mod  []byte
	}{
		{"random_get", loop(args(0, 0, 16<<20)...)},
		{"fd_read", loop(args(1, 0, 1<<20, 1<<20, 10<<20)...)}, // stdin into 2^20 empty buffers at 1 MiB
		{"path_unlink_file", loop(args(2, 3, 0, 16<<20)...)},   // a path of 16 MiB, copied and cleaned before fd 3 is found closed
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mustHost(t, Config{Processors: 1})
			xs := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return tc.mod, nil })
			xq := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return quickReactor(), nil })
			mustCall(t, xq, `{}`)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			ended := make(chan struct{})
			go func() { call(ctx, xs, `{}`); close(ended) }()
			time.Sleep(200 * time.Millisecond)
			qctx, qcancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer qcancel()
			start := time.Now()
			if _, err := call(qctx, xq, `{}`); err != nil {
				t.Errorf("a call beside the looping guest: %v after %s", err, time.Since(start))
			}
			select {
			case <-ended:
			case <-time.After(3 * time.Second):
				t.Fatal("the looping guest ran on 2 s past its deadline")
			}
			if !h.gate.idle(1) {
				t.Error("the gate lacks its token")
			}
		})
	}
}

// TestHost_HostCallLoopStopsAtDeadline: a guest looping over venue.call
// with a request of 16 MiB of spaces, which the host scans whole before
// refusing it, stops at its deadline: the call took the token back without
// noticing that its context had ended, and ran on for over a minute.
func TestHost_HostCallLoopStopsAtDeadline(t *testing.T) {
	imports := []wimport{{mod: "venue", name: "call", params: []byte{tI32, tI32}, results: []byte{tI64}}}
	body := append(append(append(i32Const(0), i32Const(' ')...), i32Const(16<<20)...), 0xfc, 0x0b, 0x00)                             // memory.fill
	body = append(append(append(append(body, 0x03, 0x40), i32Const(0)...), i32Const(16<<20)...), 0x10, 0x00, 0x1a, 0x0c, 0x00, 0x0b) // loop  venue.call  drop  br 0  end
	mod := reactorImporting(imports, body, nil, 257)
	h := mustHarnessWith(t, Config{Processors: 1}, runtime.Config{JobTimeout: time.Second, Workers: 4}, map[string][]byte{"callspin": mod})
	start := time.Now()
	j, err := h.Invoke(h.bob, runtime.InvokeRequest{Operation: "v/test/wasm/callspin", Input: json.RawMessage(`{}`), Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); !j.Status.Terminal() || d > 3*time.Second {
		t.Fatalf("the job is %s after %s under a deadline of 1 s", j.Status, d)
	}
	if j.Status != venue.StatusFailed || !strings.Contains(j.Error, "timed out") {
		t.Errorf("%s %q, want a timeout", j.Status, j.Error)
	}
}
