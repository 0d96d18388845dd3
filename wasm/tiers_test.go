package wasm

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/logbuf"
	"github.com/gridvenue/venue/runtime"
)

// interpreting returns a host that runs every module on the interpreter,
// for tests of what must hold on both engines.
func interpreting(t *testing.T) *Host {
	h := mustHost(t, Config{})
	h.box = h.interp
	return h
}

// TestTiers: a new Go module's first calls run on the interpreter while it
// compiles (a tenth of the compile's time to prepare), the calls that begin
// after the compile run compiled, and the interpreted module is retired:
// its instances closed, busy ones included, its code closed once unused.
// Calls made all through the compile and past it all answer.
func TestTiers(t *testing.T) {
	ctx := context.Background()
	var logged logbuf.Buffer
	// No on-disk cache: the compile takes its full time.
	h, err := New(ctx, Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(ctx) })
	mod := withCustomSection(mustGuest(t, "goreactor"), int(time.Now().UnixNano()))
	var loads atomic.Int32
	x := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) {
		loads.Add(1)
		return mod, nil
	})

	start := time.Now()
	mustCall(t, x, `{}`)
	first := time.Since(start)
	interp := poolModule(t, h)
	if interp.box != h.interp {
		t.Fatalf("the first call, after %s, ran compiled: the compile ended before the interpreter was ready", first)
	}
	compiled := make(chan struct{})
	var wg sync.WaitGroup
	var calls atomic.Int64
	for range 4 {
		wg.Go(func() {
			for after := 0; after < 10; { // on for 10 calls after the compile
				select {
				case <-compiled:
					after++
				default:
				}
				if _, err := call(ctx, x, `{}`); err != nil {
					t.Errorf("call %d: %v", calls.Load(), err)
					return
				}
				calls.Add(1)
			}
		})
	}
	m, err := h.Compile(ctx, mod) // waits for the compiled code
	close(compiled)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first call (interpreted) after %s, compiled after %s, %d calls", first, time.Since(start), calls.Load())
	if m.box != h.box || m == interp {
		t.Fatalf("Compile returned the interpreted module")
	}
	// Retired, and logged, just after the compile's end is announced.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if isClosed(interp) && !pooled(h, interp) && strings.Contains(logged.String(), "compiled a wasm module") {
			break
		}
	}
	if !isClosed(interp) || !interp.evicted.Load() {
		t.Errorf("the interpreted module is still open (evicted %v)", interp.evicted.Load())
	}
	if got := poolModule(t, h); got != m {
		t.Errorf("instances of %p are pooled, want only the compiled module's (%p)", got, m)
	}
	if _, err := call(ctx, x, `{"do":"fail"}`); venue.ErrorCode(err) != venue.EINVALID {
		t.Errorf("a guest's error after the switch: %v, want EINVALID", err)
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("the module was loaded %d times, want once: the compiled module follows the interpreted one", n)
	}
	if line := logged.String(); !strings.Contains(line, `msg="compiled a wasm module"`) || !strings.Contains(line, `interpreter="stood in"`) {
		t.Errorf("the compile was not logged as one the interpreter stood in for: %q", line)
	}
}

// TestTiers_CachedModuleIsNotInterpreted: a module the on-disk cache holds
// loads from it about as fast as the interpreter would start, which is
// then not prepared at all.
func TestTiers_CachedModuleIsNotInterpreted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mod := withCustomSection(mustGuest(t, "goreactor"), int(time.Now().UnixNano()))
	first, err := New(ctx, Config{CacheDir: dir, WaitForCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Compile(ctx, mod); err != nil {
		t.Fatal(err)
	}
	first.Close(ctx)

	// Best of three restarts: on a loaded machine the cache's load may
	// take longer than twice the instrumenting now and then.
	var lines []string
	for range 3 {
		var logged logbuf.Buffer
		h, err := New(ctx, Config{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
		if err != nil {
			t.Fatal(err)
		}
		mustCall(t, directBytes(h, mod), `{}`)
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logged.String(), "compiled a wasm module") && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		h.Close(ctx)
		if line := logged.String(); strings.Contains(line, `interpreter="not started"`) {
			return
		}
		lines = append(lines, logged.String())
	}
	t.Errorf("logs %q, want a compile logged with the interpreter not started", lines)
}

// TestTiers_Off: with WaitForCompile the first call waits for the
// compiled code.
func TestTiers_Off(t *testing.T) {
	h, err := New(context.Background(), Config{WaitForCompile: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	mustCall(t, directBytes(h, withCustomSection(mustGuest(t, "creactor"), 1)), `{}`)
	if m := poolModule(t, h); m.box != h.box || h.interp != nil {
		t.Fatal("the call ran interpreted")
	}
}

// TestTiers_InterpreterStopsAtTheDeadline: the instrumented checks stop a
// looping guest on the interpreter too.
func TestTiers_InterpreterStopsAtTheDeadline(t *testing.T) {
	h := interpreting(t)
	x := direct(t, h, "goreactor")
	mustCall(t, x, `{}`)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := call(ctx, x, `{"do":"loop"}`); err != context.DeadlineExceeded {
		t.Fatalf("the looping call returned %v, want its context's error", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the looping call stopped after %s", took)
	}
	mustCall(t, x, `{}`)
}

// poolModule is the module of the host's one pooled instance.
func poolModule(t *testing.T, h *Host) *Module {
	t.Helper()
	h.pools.mu.Lock()
	defer h.pools.mu.Unlock()
	var mods []*Module
	for k, ins := range h.pools.byKey {
		if len(ins) > 0 {
			mods = append(mods, k.mod)
		}
	}
	if len(mods) != 1 {
		t.Fatalf("%d pools hold instances, want 1", len(mods))
	}
	return mods[0]
}

// TestTiers_InterpreterCallDepth: on the interpreter, a recursion past its
// bound of 2,000 nested calls fails its call with words that say so and
// why, and the venue keeps serving. Raised to the venue's own bound, the
// interpreter's recursion on the Go stack killed the process.
func TestTiers_InterpreterCallDepth(t *testing.T) {
	h := interpreting(t)
	x := directBytes(h, recursing())
	for range 2 {
		_, err := call(context.Background(), x, `{}`) // 20,000 deep
		if err == nil || !strings.Contains(err.Error(), "calls nested deeper than the interpreter allows: a new module's calls run on wazero's interpreter while it compiles") {
			t.Fatalf("a recursion of 20,000: %v", err)
		}
	}
	mustCall(t, direct(t, h, "creactor"), `{}`)
}

func isClosed(m *Module) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// pooled reports whether instances of m are idle in h's pools.
func pooled(h *Host, m *Module) bool {
	h.pools.mu.Lock()
	defer h.pools.mu.Unlock()
	for k, ins := range h.pools.byKey {
		if k.mod == m && len(ins) > 0 {
			return true
		}
	}
	return false
}
