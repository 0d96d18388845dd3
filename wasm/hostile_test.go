package wasm

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/runtime"
)

// TestHost_Hostile runs guests that misbehave. Each must fail its own job
// with a clear error within its deadline, and the engine must serve a
// normal call right after.
func TestHost_Hostile(t *testing.T) {
	h := mustHarness(t, Config{MemoryLimitPages: 256, MaxOutput: 1 << 20},
		runtime.Config{JobTimeout: 300 * time.Millisecond}, "goreactor", "gocommand", "creactor")
	const (
		gor, goc, cr = "v/test/wasm/goreactor", "v/test/wasm/gocommand", "v/test/wasm/creactor"
		add          = `{"a":40,"b":2,"name":"x"}`
	)
	h.mustComplete(t, h.alice, gor, add) // warm: instances ready, as in steady state
	badptr := func(fn string, ptr, n uint32) string {
		return fmt.Sprintf(`{"do":"badptr","fn":%q,"ptr":%d,"len":%d}`, fn, ptr, n)
	}
	for _, tc := range []struct {
		name, op, input string
		want            []string // parts of the job's error
	}{
		{"infinite loop", gor, `{"do":"loop"}`, []string{"Job timed out after 300ms"}},
		{"command infinite loop", goc, `{"do":"loop"}`, []string{"Job timed out after 300ms"}},
		{"sleeping past the deadline", gor, `{"do":"sleep","size":60000}`, []string{"Job timed out after 300ms"}},
		{"allocating without end", gor, `{"do":"alloc","size":4}`, []string{"operation ran out of memory (limit 16 MiB)"}},
		{"nil dereference", gor, `{"do":"nilderef"}`, []string{"operation crashed: panic: runtime error: invalid memory address or nil pointer dereference (wasm error: unreachable)"}},
		{"trap", cr, `{"do":"trap"}`, []string{"operation crashed: wasm error: unreachable"}},
		{"gigantic output", gor, `{"do":"bigoutput","size":2097152}`, []string{"output of 2097154 bytes exceeds the limit of 1048576 bytes"}},
		{"command gigantic output", goc, `{"do":"bigoutput","size":2097152}`, []string{"output of 2097154 bytes exceeds the limit of 1048576 bytes"}},
		{"call out of range", gor, badptr("call", 0xffffff00, 16), []string{"operation crashed: venue.call: the request's 16 bytes at 0xffffff00 are outside the module's memory"}},
		{"call with negative length", gor, badptr("call", 64, 0xffffffff), []string{"operation crashed: venue.call: the request's length 4294967295 exceeds the limit of 16777216 bytes"}},
		{"call overflowing ptr+len", gor, badptr("call", 0xfffffff0, 0x20), []string{"operation crashed: venue.call: the request's 32 bytes at 0xfffffff0 are outside"}},
		{"call over the request cap", gor, badptr("call", 0, 16<<20+1), []string{"exceeds the limit of 16777216 bytes"}},
		{"log out of range", gor, badptr("log", 0x7fffffff, 2), []string{"operation crashed: venue.log: the message's 2 bytes at 0x7fffffff are outside"}},
		{"result out of range", gor, badptr("result", 0xfffffffe, 100), []string{"operation crashed: venue.result: the buffer's"}},
		{"result with none pending", gor, `{"do":"badptr","fn":"result-none"}`, []string{"operation crashed: venue.result: no result is pending"}},
		{"result into a small buffer", gor, `{"do":"badptr","fn":"result-small"}`, []string{"operation crashed: venue.result: the buffer of", "is too small for the pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			wantContains(t, "error", h.mustFail(t, h.alice, tc.op, tc.input), tc.want...)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the job took %s to fail", took)
			}
			h.mustComplete(t, h.alice, gor, add)
			h.mustComplete(t, h.alice, tc.op, add)
		})
	}
}

// TestHost_Sandbox checks what a guest cannot reach: files, sockets, the
// host's environment. These fail inside the guest, which reports them.
func TestHost_Sandbox(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor", "gocommand", "creactor")
	t.Run("go reactor cannot read files", func(t *testing.T) {
		out := h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"readfile"}`)
		var report map[string]string
		if err := json.Unmarshal([]byte(out), &report); err != nil || len(report) != 4 {
			t.Fatalf("report %s: %v", out, err)
		}
		for path, what := range report {
			if strings.HasPrefix(what, "READ") || strings.Contains(what, "root:") {
				t.Errorf("the guest read %s: %s", path, what)
			}
		}
	})
	t.Run("go command cannot read files", func(t *testing.T) {
		out := h.mustComplete(t, h.alice, "v/test/wasm/gocommand", `{"do":"readfile"}`)
		wantContains(t, "output", out, `"read":false`)
	})
	t.Run("c reactor cannot read files", func(t *testing.T) {
		out := h.mustComplete(t, h.alice, "v/test/wasm/creactor", `{"do":"readfile"}`)
		wantContains(t, "output", out, `{"read":false}`)
	})
	t.Run("no sockets", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan struct{}, 1)
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
				accepted <- struct{}{}
			}
		}()
		out := h.mustComplete(t, h.alice, "v/test/wasm/goreactor", fmt.Sprintf(`{"do":"socket","text":%q}`, ln.Addr().String()))
		wantContains(t, "output", out, `"connected":false`)
		select {
		case <-accepted:
			t.Error("the guest connected to the listener")
		case <-time.After(50 * time.Millisecond):
		}
	})
	t.Run("a sleep lasts as asked", func(t *testing.T) {
		start := time.Now()
		h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"sleep","size":100}`)
		if took := time.Since(start); took < 100*time.Millisecond {
			t.Errorf("a 100 ms sleep took %s", took)
		}
	})
	t.Run("argv[0] only, no environment, real clock", func(t *testing.T) {
		var got struct {
			Args []string `json:"args"`
			Env  []string `json:"env"`
			Now  int64    `json:"now"`
		}
		out := h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"env"}`)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Args) != 1 || len(got.Env) != 0 {
			t.Errorf("args %q, env %q; want argv[0] only and no environment", got.Args, got.Env)
		}
		if d := time.Since(time.UnixMilli(got.Now)); d < 0 || d > time.Minute {
			t.Errorf("the guest's clock is off by %s", d)
		}
	})
}
