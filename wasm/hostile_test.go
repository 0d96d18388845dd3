package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestHost_Hostile runs guests that misbehave. Each must fail its own job
// with a clear error within its deadline, and the engine must serve a
// normal call right after. The deadline is a second, so that the loops end
// soon; allocating up to the limit runs under a longer one (see
// TestHost_AllocatingWithoutEnd).
func TestHost_Hostile(t *testing.T) {
	h := mustHarness(t, Config{MemoryLimitPages: 256, MaxOutput: 1 << 20},
		runtime.Config{JobTimeout: time.Second}, "goreactor", "gocommand", "creactor")
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
		{"infinite loop", gor, `{"do":"loop"}`, []string{"Job timed out after 1s"}},
		{"command infinite loop", goc, `{"do":"loop"}`, []string{"Job timed out after 1s"}},
		{"sleeping past the deadline", gor, `{"do":"sleep","size":60000}`, []string{"Job timed out after 1s"}},
		{"nil dereference", gor, `{"do":"nilderef"}`, []string{"operation crashed: panic: runtime error: invalid memory address or nil pointer dereference (wasm error: unreachable)"}},
		{"trap", cr, `{"do":"trap"}`, []string{"operation crashed: wasm error: unreachable"}},
		{"an error message past memory", cr, `{"do":"errpastmemory"}`, []string{"operation crashed: venue_run returned an error message (2147483647 bytes at 0x10) outside the module's memory"}},
		{"output nested too deep", cr, `{"do":"deep"}`, []string{"Operation returned output nested more than 10000 levels deep, which JSON readers refuse"}},
		{"gigantic output", gor, `{"do":"bigoutput","size":2097152}`, []string{"output of 2097154 bytes exceeds the limit of 1048576 bytes"}},
		{"command gigantic output", goc, `{"do":"bigoutput","size":2097152}`, []string{"bytes or more exceeds the limit of 1048576 bytes"}},
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

// TestHost_AllocatingWithoutEnd: a guest allocating without end fails its
// job for want of memory, and the next call is served. Its deadline is
// longer than TestHost_Hostile's second, which allocating the 16 MiB limit
// outlasted under the race detector on a busy machine (1.3 s in CI).
func TestHost_AllocatingWithoutEnd(t *testing.T) {
	h := mustHarness(t, Config{MemoryLimitPages: 256}, runtime.Config{JobTimeout: 20 * time.Second}, "goreactor")
	const gor, add = "v/test/wasm/goreactor", `{"a":40,"b":2,"name":"x"}`
	h.mustComplete(t, h.alice, gor, add)
	wantContains(t, "error", h.mustFail(t, h.alice, gor, `{"do":"alloc","size":4}`), "operation ran out of memory (limit 16 MiB)")
	h.mustComplete(t, h.alice, gor, add)
}

// TestHost_Sandbox checks what a guest cannot reach: files, sockets, the
// host's environment. These fail inside the guest, which reports them.
func TestHost_Sandbox(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor", "gocommand", "creactor", "cprobereactor")
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
	t.Run("c probe: no sockets, no files", func(t *testing.T) {
		// Go's net.Dial on wasip1 is an in-process fake that never reaches
		// the host, so the probe is C calling WASI itself.
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
		checkProbe(t, h.mustComplete(t, h.alice, "v/test/wasm/cprobereactor", fmt.Sprintf(`{"listener":%q}`, ln.Addr())))
		select {
		case <-accepted:
			t.Error("something connected to the listener while the guest ran")
		case <-time.After(100 * time.Millisecond):
		}
	})
	t.Run("a sleep lasts as asked", func(t *testing.T) {
		start := time.Now()
		h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"sleep","size":100}`)
		if took := time.Since(start); took < 100*time.Millisecond {
			t.Errorf("a 100 ms sleep took %s", took)
		}
	})
	t.Run("argv[0] only, GOMEMLIMIT only, real clock", func(t *testing.T) {
		var got struct {
			Args []string `json:"args"`
			Env  []string `json:"env"`
			Now  int64    `json:"now"`
		}
		out := h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"env"}`)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if want := "GOMEMLIMIT=" + guestMemLimit(h.host.cfg.memoryLimit()); len(got.Args) != 1 || len(got.Env) != 1 || got.Env[0] != want {
			t.Errorf("args %q, env %q; want argv[0] only and %s", got.Args, got.Env, want)
		}
		if d := time.Since(time.UnixMilli(got.Now)); d < 0 || d > time.Minute {
			t.Errorf("the guest's clock is off by %s", d)
		}
	})
}

// Errnos of WASI preview 1 the probe may get: the call is refused.
const (
	errnoACCES      = 2
	errnoBADF       = 8
	errnoNOENT      = 44
	errnoNOTDIR     = 54
	errnoNOTSOCK    = 57
	errnoPERM       = 63
	errnoNOTCAPABLE = 76
	probeFDs        = 17 // fds 0 to 16
	probePathsPerFD = 5
)

// checkProbe checks the cprobereactor's report: every socket call on every
// fd was refused as no socket, nothing could be opened anywhere, and no fd
// but stdio's claims to be pre-opened.
func checkProbe(t *testing.T, out string) {
	t.Helper()
	var got struct {
		SockAccept   []int `json:"sock_accept"`
		SockRecv     []int `json:"sock_recv"`
		SockSend     []int `json:"sock_send"`
		SockShutdown []int `json:"sock_shutdown"`
		Prestat      []int `json:"prestat"`
		PrestatName  []int `json:"prestat_name"`
		Open         []int `json:"open"`
		Opened       int   `json:"opened"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("probe report %s: %v", out, err)
	}
	for name, errs := range map[string][]int{"sock_accept": got.SockAccept, "sock_recv": got.SockRecv,
		"sock_send": got.SockSend, "sock_shutdown": got.SockShutdown} {
		wantErrnos(t, name, errs, probeFDs, errnoBADF, errnoNOTSOCK)
	}
	wantErrnos(t, "path_open", got.Open, probeFDs*probePathsPerFD, errnoBADF, errnoNOTDIR, errnoPERM, errnoNOTCAPABLE, errnoNOENT, errnoACCES)
	// wazero counts stdio (fds 0-2) as pre-opened and answers
	// fd_prestat_get on them with an empty directory name; path_open under
	// them fails all the same (above). Every other fd is closed.
	if len(got.Prestat) != probeFDs || len(got.PrestatName) != probeFDs {
		t.Fatalf("prestat %v, names %v: want %d each", got.Prestat, got.PrestatName, probeFDs)
	}
	for fd, errno := range got.Prestat {
		if stdio := fd <= 2; !(errno == errnoBADF || stdio && errno == 0 && got.PrestatName[fd] == 0) {
			t.Errorf("fd_prestat_get(%d) = errno %d, name of %d bytes: a pre-opened directory", fd, errno, got.PrestatName[fd])
		}
	}
	if got.Opened != 0 {
		t.Errorf("%d socket calls or opens succeeded: %s", got.Opened, out)
	}
}

func wantErrnos(t *testing.T, call string, got []int, n int, allowed ...int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%s: %d results, want %d", call, len(got), n)
	}
	for i, errno := range got {
		if !slices.Contains(allowed, errno) {
			t.Errorf("%s, attempt %d: errno %d, want one of %v", call, i, errno, allowed)
		}
	}
}

// TestHost_BuiltinSpinStops: the venue's own module, which runs for
// every caller, is stopped by its job's deadline and by a cancel like any
// other (the interrupt check every module is compiled with), so a spinning
// built-in gives its worker back at once: the job fails with the timeout,
// and a cancelled one frees the only worker well before the spin would end.
func TestHost_BuiltinSpinStops(t *testing.T) {
	const spin, deadline = 1500 * time.Millisecond, 300 * time.Millisecond
	h := mustHarness(t, Config{}, runtime.Config{JobTimeout: deadline, Workers: 1})
	in := fmt.Sprintf(`{"do":"spin","size":%d}`, spin.Milliseconds())
	warm(t, h)
	start := time.Now()
	j := h.run(t, h.alice, "v/test/tb/add", in)
	if ended := time.Since(start); ended > spin/2 || j.Error != "Job timed out after "+deadline.String() {
		t.Errorf("the job ended after %s, %s %q: the deadline did not stop the guest", ended, j.Status, j.Error)
	}
	if freed := cancelSpin(t, h, in); freed > spin/2 {
		t.Errorf("after a cancel the only worker was busy for %s: the cancel did not stop the guest", freed)
	}
}

// cancelSpin starts a spinning job, cancels it once it runs, and returns
// how long the venue's only worker then stays taken: the time until the
// next job completes.
func cancelSpin(t *testing.T, h *harness, in string) time.Duration {
	t.Helper()
	j, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/tb/add", Input: json.RawMessage(in)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // into the spin
	c, err := h.Cancel(h.alice, j.ID)
	if err != nil || c.Status != venue.StatusCancelled {
		t.Fatalf("cancel: %v, %+v", err, c)
	}
	start := time.Now()
	warm(t, h)
	return time.Since(start)
}

// warm runs the built-in until a call completes: the first may time out
// while the module compiles or an instance is made, on a busy machine.
func warm(t *testing.T, h *harness) {
	t.Helper()
	for range 20 {
		if h.run(t, h.alice, "v/test/tb/add", `{"a":1,"b":2}`).Status == venue.StatusComplete {
			return
		}
	}
	t.Fatal("no call of the built-in completed")
}

// TestHost_CallDepth runs a reactor whose venue_run recurses 10,000 times
// per byte of its input: a recursion of 20,000 completes, one of 20
// million fails at the call stack's bound (an audit's recursing guest grew
// wazero's stack to 150 MB per call first), and the instance, reused,
// keeps its whole budget for the next call. The host waits for the
// compile: the interpreter's bound is lower (TestTiers_InterpreterCallDepth).
func TestHost_CallDepth(t *testing.T) {
	h := mustHost(t, Config{WaitForCompile: true})
	x := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return recursing(), nil })
	for range 3 { // the same instance each time: its depth starts at 0
		if out, err := call(context.Background(), x, `{}`); err != nil || string(out) != `{}` {
			t.Fatalf("a recursion of 20,000: %s, %v", out, err)
		}
	}
	start := time.Now()
	_, err := call(context.Background(), x, `{"x":"`+strings.Repeat("x", 1990)+`"}`)
	if err == nil || !strings.Contains(err.Error(), "calls nested deeper than the venue allows: its call stack reached the limit") {
		t.Fatalf("a recursion of 20 million: %v", err)
	}
	t.Logf("%v after %s", err, time.Since(start))
	if out, err := call(context.Background(), x, `{}`); err != nil || string(out) != `{}` {
		t.Fatalf("after the failure: %s, %v", out, err)
	}
}

// recursing is a reactor whose venue_run recurses 10,000 times per byte of
// its input.
func recursing() []byte {
	// rec(n): if n == 0 { return }  rec(n-1)
	rec := wfunc{params: []byte{tI32}, body: []byte{0x20, 0x00, 0x45, 0x04, 0x40, 0x0f, 0x0b, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00}}
	// venue_run: rec(in_len * 10000), then "{}" at address 0 as the output.
	run := append([]byte{0x20, 0x03}, i32Const(10000)...)
	run = append(append(append(run, 0x6c, 0x10, 0x00), i32Const(0)...), i32Const(0x7d7b)...)
	run = append(append(run, 0x3b, 0x00, 0x00), i64Const(2)...)
	return buildModule(nil, []wfunc{rec,
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: run},
	}, 1)
}
