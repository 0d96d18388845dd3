package wasm

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestHost_Compile checks which modules the host accepts, and the words it
// refuses the others with.
func TestHost_Compile(t *testing.T) {
	h := mustHost(t, Config{MaxModuleSize: 8 << 20})
	venueCall := wimport{"venue", "call", []byte{tI32, tI32}, []byte{tI64}}
	for _, tc := range []struct {
		name    string
		module  func(t *testing.T) []byte
		wantABI ABI
		wantErr string
	}{
		{"go reactor", guest("goreactor"), Reactor, ""},
		{"go command", guest("gocommand"), Command, ""},
		{"c reactor", guest("creactor"), Reactor, ""},
		{"c command", guest("ccommand"), Command, ""},
		{"a reactor importing the venue", bytesOf(buildModule([]wimport{venueCall}, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
		}, 1)), Reactor, ""},
		{"not wasm", bytesOf([]byte("#!/bin/sh\necho hi\n")), "", "module does not compile: malformed module: invalid magic number"},
		{"truncated", bytesOf(fakeReactor(8, 0)[:40]), "", "module does not compile: "},
		{"neither ABI", bytesOf(buildModule(nil, []wfunc{{export: "main"}}, 1)), "",
			"module exports neither the reactor ABI (memory, venue_alloc, venue_run) nor a WASI command's _start"},
		{"half a reactor", bytesOf(buildModule(nil, []wfunc{{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)}}, 1)), "",
			"nor a WASI command's _start (it lacks venue_alloc)"},
		{"no ABI marker", bytesOf(buildModule(nil, []wfunc{
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
		}, 1)), "", "module exports venue_alloc and venue_run but not venue_abi_1, the marker of the reactor ABI it implements: export a function venue_abi_1"},
		{"venue_run of the wrong type", bytesOf(buildModule(nil, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32}, results: []byte{tI32}, body: i32Const(0)},
		}, 1)), "", "module's venue_run has the signature (i32, i32) -> (i32); the ABI wants (i32, i32, i32, i32) -> (i64)"},
		{"_initialize of the wrong type", bytesOf(buildModule(nil, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
			{export: "_initialize", params: []byte{tI32}},
		}, 1)), "", "module's _initialize has the signature (i32) -> (); the ABI wants () -> ()"},
		{"a command exporting the reactor ABI without _initialize", bytesOf(buildModule(nil, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
			{export: "_start"},
		}, 1)), "", "and a WASI command's _start but no _initialize: it was built as a command, so its runtime would never be initialised; build it as a reactor library (Go: -buildmode=c-shared"},
		{"both ABIs with _initialize", bytesOf(buildModule(nil, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
			{export: "_initialize"},
			{export: "_start"},
		}, 1)), Reactor, ""},
		{"_start of the wrong type", bytesOf(buildModule(nil, []wfunc{{export: "_start", results: []byte{tI32}, body: i32Const(0)}}, 1)), "",
			"module's _start has the signature () -> (i32); the ABI wants () -> ()"},
		{"a foreign import", bytesOf(buildModule([]wimport{{"env", "read_secret", []byte{tI32}, []byte{tI32}}}, []wfunc{{export: "_start"}}, 1)), "",
			"module imports env.read_secret; only functions of wasi_snapshot_preview1 and venue may be imported"},
		{"a WASI function wazero lacks", bytesOf(buildModule([]wimport{{"wasi_snapshot_preview1", "sock_open", []byte{tI32}, []byte{tI32}}}, []wfunc{{export: "_start"}}, 1)), "",
			"module imports wasi_snapshot_preview1.sock_open, which the venue does not provide"},
		{"a venue import of the wrong type", bytesOf(buildModule([]wimport{{"venue", "call", []byte{tI32, tI32}, []byte{tI32}}}, []wfunc{{export: "_start"}}, 1)), "",
			"module imports venue.call as (i32, i32) -> (i32); the venue provides (i32, i32) -> (i64)"},
		{"an unknown venue import", bytesOf(buildModule([]wimport{{"venue", "read_secret", []byte{tI32}, []byte{tI32}}}, []wfunc{{export: "_start"}}, 1)), "",
			"module imports venue.read_secret, which the venue does not provide"},
		{"memory over the limit", bytesOf(buildModule(nil, []wfunc{{export: "_start"}}, 2000)), "", "module's memory starts at 2000 pages of 64 KiB (125.00 MiB); the venue allows at most 1024 pages (64 MiB)"},
		{"too large", bytesOf(make([]byte, 8<<20+1)), "", "module of 8388609 bytes exceeds the limit of 8388608 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := h.Compile(context.Background(), tc.module(t))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("compiled as a %s, want %q", m.ABI(), tc.wantErr)
				}
				wantContains(t, "error", err.Error(), tc.wantErr)
				t.Log(err)
				if code := venue.ErrorCode(err); code != venue.EINVALID && code != venue.ETOOLARGE {
					t.Errorf("code %s, want invalid or too_large", code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.ABI() != tc.wantABI {
				t.Errorf("ABI %s, want %s", m.ABI(), tc.wantABI)
			}
		})
	}
}

func guest(name string) func(*testing.T) []byte {
	return func(t *testing.T) []byte { return mustGuest(t, name) }
}

func bytesOf(b []byte) func(*testing.T) []byte { return func(*testing.T) []byte { return b } }

// TestHost_CompileOnce checks that concurrent compiles of the same bytes
// share one module.
func TestHost_CompileOnce(t *testing.T) {
	h := mustHost(t, Config{})
	wasm := mustGuest(t, "creactor")
	mods := make([]*Module, 8)
	var wg sync.WaitGroup
	for i := range mods {
		wg.Go(func() {
			m, err := h.Compile(context.Background(), wasm)
			if err != nil {
				t.Error(err)
			}
			mods[i] = m
		})
	}
	wg.Wait()
	for _, m := range mods[1:] {
		if m != mods[0] {
			t.Fatal("the same bytes compiled twice")
		}
	}
	if len(h.modules.byKey) != 1 {
		t.Errorf("%d cache entries, want 1", len(h.modules.byKey))
	}
}

// TestHost_CompileSlots checks that modules compile MaxCompiles at a time:
// one waits while the slots are taken, and gives up when the host closes.
func TestHost_CompileSlots(t *testing.T) {
	h := mustHost(t, Config{MaxCompiles: 1})
	reactor := func(n int32) []byte {
		return buildModule(nil, []wfunc{
			{export: "venue_abi_1"},
			{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(n)},
			{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(0)},
		}, 1)
	}
	wasm := reactor(8)
	h.slots <- struct{}{} // a compile under way
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := h.Compile(ctx, wasm); err != context.DeadlineExceeded {
		t.Fatalf("Compile with every slot taken = %v, want it to wait past its deadline", err)
	}
	<-h.slots
	waitFor(t, func() bool { h.modules.mu.Lock(); defer h.modules.mu.Unlock(); return len(h.modules.byKey) == 0 })
	if _, err := h.Compile(context.Background(), wasm); err != nil {
		t.Fatalf("Compile once the slot is free = %v", err)
	}
	h.slots <- struct{}{}
	done := make(chan error, 1)
	go func() {
		_, err := h.Compile(context.Background(), reactor(16)) // other bytes, a new compile
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	h.Close(context.Background())
	if err := <-done; venue.ErrorCode(err) != venue.EUNAVAILABLE {
		t.Fatalf("Compile waiting when the host closes = %v, want it unavailable", err)
	}
}

// TestHost_LyingReactor checks what the host makes of a reactor whose
// pointers point nowhere.
func TestHost_LyingReactor(t *testing.T) {
	h := mustHost(t, Config{})
	for _, tc := range []struct {
		name  string
		alloc int32
		run   int64
		want  string
	}{
		{"alloc returns null", 0, 0, "operation crashed: venue_alloc(4096) returned 0x0, not a buffer inside the module's memory"},
		{"alloc returns a buffer past the end", 65000, 0, "venue_alloc(4096) returned 0xfde8, not a buffer inside"},
		{"output past the end", 8, 65000<<32 | 1000, "operation crashed: venue_run returned an output (1000 bytes at 0xfde8) outside the module's memory"},
		{"error message past the end", 8, 0x7fff0000<<32 | 0x80000010, "operation crashed: venue_run returned an error message (16 bytes at 0x7fff0000) outside"},
		{"output not JSON", 8, 8<<32 | 4, `Operation returned output that is not JSON (4 bytes: "wasm")`},
		{"empty error message", 8, 8<<32 | 0x80000000, "the operation failed without saying why"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := fakeReactor(tc.alloc, tc.run)
			x := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return mod, nil })
			_, err := call(context.Background(), x, `{}`)
			if err == nil {
				t.Fatal("no error")
			}
			wantContains(t, "error", err.Error(), tc.want)
		})
	}
}

// TestHost_CompileCacheBound checks that beyond MaxModules the least
// recently used module is dropped, with its idle instances, that a call
// needing it again compiles it again, and that the venue's own module
// stays.
func TestHost_CompileCacheBound(t *testing.T) {
	h := mustHost(t, Config{MaxModules: 1, IdleTimeout: time.Hour})
	ctx := context.Background()
	mods := map[byte][]byte{1: mustGuest(t, "creactor"), 2: mustGuest(t, "ccommand"), 3: withCustomSection(mustGuest(t, "creactor"), 3)}
	var loads atomic.Int32
	x := h.Uploaded(func(_ context.Context, _ *runtime.Env, op *venue.Operation) ([]byte, error) {
		loads.Add(1)
		return mods[op.Asset[0]], nil
	})
	run := func(asset byte) {
		t.Helper()
		if _, err := x.Execute(ctx, &venue.Operation{Name: "wasm", Asset: venue.AssetID{asset}}, json.RawMessage(`{"a":1}`), nil); err != nil {
			t.Fatalf("module %d: %v", asset, err)
		}
	}
	builtin, err := h.Builtin(mustGuest(t, "goreactor"))
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, builtin, `{}`)
	run(1)
	wantCounts(t, h, 2, 2)
	run(2) // evicts module 1 and its idle instance
	waitFor(t, func() bool { idle, _ := h.pools.counts(); return idle == 1 })
	run(1) // compiled again
	if n := loads.Load(); n != 3 {
		t.Errorf("%d loads, want 3: module 1 twice", n)
	}
	mustCall(t, builtin, `{}`)
	wantCounts(t, h, 2, 2)
	t.Run("under concurrent calls", func(t *testing.T) {
		var wg sync.WaitGroup
		for i := range 24 {
			wg.Go(func() {
				asset := byte(i%3 + 1)
				if _, err := x.Execute(ctx, &venue.Operation{Name: "wasm", Asset: venue.AssetID{asset}}, json.RawMessage(`{"a":1}`), nil); err != nil {
					t.Errorf("module %d: %v", asset, err)
				}
			})
		}
		wg.Wait()
		t.Logf("%d loads in all", loads.Load())
		waitFor(t, func() bool { // what the sweeper does, once compiles have settled
			h.evict(h.modules.overflow())
			h.modules.mu.Lock()
			defer h.modules.mu.Unlock()
			n, _ := h.modules.victim()
			return n == 1
		})
	})
}

// TestHost_EvictedModule checks that an evicted module's code stays open
// for the calls using it, closes after the last, and serves no new call.
func TestHost_EvictedModule(t *testing.T) {
	h := mustHost(t, Config{})
	ctx := context.Background()
	m, err := h.Compile(ctx, mustGuest(t, "creactor"))
	if err != nil {
		t.Fatal(err)
	}
	run := func() error {
		_, err := h.runReactor(ctx, poolKey{mod: m}, "wasm", []byte(`{}`), nil)
		return err
	}
	if !m.use() || run() != nil {
		t.Fatal("a fresh module does not run")
	}
	h.evict([]*Module{m})
	wantCounts(t, h, 0, 0)
	if err := run(); err != nil {
		t.Errorf("a call under way lost its module: %v", err)
	}
	wantCounts(t, h, 0, 0) // not pooled: evicted
	m.done()
	if m.use() {
		t.Error("a closed module took a new call")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// TestHost_BuiltinStops checks that the venue's own module, which runs
// for everyone, is stopped at its call's deadline like a user's: looping,
// sleeping, and when the same bytes are uploaded by a user too.
func TestHost_BuiltinStops(t *testing.T) {
	h := mustHost(t, Config{})
	mod := mustGuest(t, "goreactor")
	builtin, err := h.Builtin(mod)
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, builtin, `{}`)
	up, err := h.Compile(context.Background(), mod)
	if err != nil {
		t.Fatal(err)
	}
	uploaded := direct(t, h, "goreactor")
	for _, tc := range []struct {
		name string
		x    runtime.Executor
		in   string
	}{
		{"builtin looping", builtin, `{"do":"loop"}`},
		{"builtin sleeping", builtin, `{"do":"sleep","size":60000}`},
		{"upload of the same bytes looping", uploaded, `{"do":"loop"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			if _, err := call(ctx, tc.x, tc.in); err == nil {
				t.Fatal("the call completed")
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("stopped after %s; the deadline was 100ms", d)
			}
			mustCall(t, tc.x, `{}`) // and the executor carries on
		})
	}
	if up.box != h.box {
		t.Error("an upload compiled in another runtime")
	}
}

// TestHost_CheckModuleInstantiates checks that an upload whose data does
// not fit its memory is refused at upload, where it used to compile and
// then fail every call.
func TestHost_CheckModuleInstantiates(t *testing.T) {
	h := mustHost(t, Config{})
	ok := buildModule(nil, []wfunc{{export: "_start"}}, 1)
	// One active data segment of one byte at offset 65536, past the one page.
	past := insertSection(ok, secData, []byte{0x01, 0x00, 0x41, 0x80, 0x80, 0x04, 0x0b, 0x01, 'x'})
	if err := h.CheckModule(context.Background(), ok); err != nil {
		t.Fatalf("a valid command: %v", err)
	}
	err := h.CheckModule(context.Background(), past)
	if venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), "module does not instantiate: ") {
		t.Fatalf("data past the memory: %v", err)
	}
	t.Log(err)
}

// TestHost_CloseDuringCompile checks that closing the host does not wait
// for a compile under way, which wazero cannot stop: its caller fails at
// once, and the runtime is closed when the compile ends.
func TestHost_CloseDuringCompile(t *testing.T) {
	ctx := context.Background()
	h, err := New(ctx, Config{}) // no on-disk cache: the compile must happen
	if err != nil {
		t.Fatal(err)
	}
	// Within the limits, a costly body (loops weigh five blocks, ifs three,
	// and the checks placed in straight code three each).
	ifs := times((maxFuncBlocks-5*maxFuncLoops-300)/3, 0x20, 0x00, 0x04, 0x40, 0x0b) // local.get 0  if  end
	slow := buildModule(nil, []wfunc{{export: "f", params: []byte{tI32}, body: append(times(maxFuncLoops, 0x03, 0x40, 0x0b), ifs...)}}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := h.Compile(ctx, slow)
		done <- err
	}()
	running := func() int {
		h.modules.mu.Lock()
		defer h.modules.mu.Unlock()
		return h.modules.running
	}
	waitFor(t, func() bool { return running() > 0 })
	h.Close(ctx)
	if running() == 0 {
		t.Fatal("Close waited for the compile under way")
	}
	if err := <-done; venue.ErrorCode(err) != venue.EUNAVAILABLE {
		t.Fatalf("Compile under way when the host closes = %v, want it unavailable", err)
	}
	tiny := buildModule(nil, nil, 1)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := h.box.rt.CompileModule(ctx, tiny); err != nil {
			break // closed
		}
		if time.Now().After(deadline) {
			t.Fatal("the runtime is still open a minute after the compile began")
		}
	}
	if n := running(); n != 0 {
		t.Fatalf("%d compiles still under way once the runtime closed", n)
	}
}

// TestCompileWorkers checks when a compile may take two goroutines: when
// every compile allowed at once can have two processors, and its two
// heaviest functions hold no more than the heaviest one the limits allow.
func TestCompileWorkers(t *testing.T) {
	for _, tc := range []struct {
		name            string
		compiles, procs int
		pair            uint64
		want            int
	}{
		{"a Go module on two processors", 1, 2, 70 << 20, 2},
		{"two functions at the limits", 1, 2, 2 * worstFuncMem, 1},
		{"a pair as heavy as the worst function", 1, 2, worstFuncMem, 2},
		{"one processor", 1, 1, 1 << 20, 1},
		{"two compiles on two processors", 2, 2, 1 << 20, 1},
		{"four compiles on eight processors", 4, 8, 1 << 20, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := compileWorkers(tc.compiles, tc.procs, tc.pair); got != tc.want {
				t.Fatalf("compileWorkers(%d, %d, %d) = %d, want %d", tc.compiles, tc.procs, tc.pair, got, tc.want)
			}
		})
	}
}
