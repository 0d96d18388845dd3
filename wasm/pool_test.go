package wasm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestHost_PoolsPerCaller checks that an uploaded module's instance never
// serves two callers, while the venue's own module serves any.
func TestHost_PoolsPerCaller(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor")
	count := func(ctx context.Context, op string) string {
		return h.mustComplete(t, ctx, op, `{"do":"count"}`)
	}
	const up, builtin = "v/test/wasm/goreactor", "v/test/tb/add"
	for _, step := range []struct {
		name, who, op, want string
	}{
		{"alice's first call instantiates", "alice", up, `{"allocs":1,"calls":1}`},
		{"alice's next call reuses her instance", "alice", up, `{"allocs":1,"calls":2}`},
		{"bob gets his own instance", "bob", up, `{"allocs":1,"calls":1}`},
		{"alice's instance is still hers", "alice", up, `{"allocs":1,"calls":3}`},
		{"the builtin serves alice", "alice", builtin, `{"allocs":1,"calls":1}`},
		{"and bob from the same instance", "bob", builtin, `{"allocs":1,"calls":2}`},
	} {
		ctx := h.alice
		if step.who == "bob" {
			ctx = h.bob
		}
		if got := count(ctx, step.op); got != step.want {
			t.Errorf("%s: %s, want %s", step.name, got, step.want)
		}
	}
}

// TestHost_DropsGrownInstances checks that an instance whose memory grew
// past half the limit is closed after its call rather than kept: the next
// call starts on a new instance, with all the memory before it.
func TestHost_DropsGrownInstances(t *testing.T) {
	x := direct(t, mustHost(t, Config{}), "goreactor") // 64 MiB
	big := strings.Repeat("n", 16<<20)                 // its buffer and the string decoded: past 32 MiB
	for _, step := range []struct{ name, input, want string }{
		{"the first call instantiates", `{"do":"count"}`, `{"allocs":1,"calls":1}`},
		{"a small call keeps the instance", `{"do":"count"}`, `{"allocs":1,"calls":2}`},
		{"a call that grows it past half the limit", `{"do":"count","text":"` + big + `"}`, `{"allocs":2,"calls":3}`},
		{"is the last on that instance", `{"do":"count"}`, `{"allocs":1,"calls":1}`},
	} {
		out, err := call(context.Background(), x, step.input)
		if err != nil {
			t.Fatalf("%s: %.300v", step.name, err)
		}
		if string(out) != step.want {
			t.Errorf("%s: %s, want %s", step.name, out, step.want)
		}
	}
}

// TestHost_InputBuffer checks that the host asks venue_alloc for a buffer
// only when an input outgrows the one it has.
func TestHost_InputBuffer(t *testing.T) {
	x := direct(t, mustHost(t, Config{}), "goreactor")
	long := strings.Repeat("n", 100_000)
	for _, step := range []struct{ name, input, want string }{
		{"the first call allocates", `{"do":"count"}`, `{"allocs":1,"calls":1}`},
		{"a small input reuses the buffer", `{"do":"count","text":"short"}`, `{"allocs":1,"calls":2}`},
		{"a large input allocates again", `{"do":"count","text":"` + long + `"}`, `{"allocs":2,"calls":3}`},
		{"and its buffer serves smaller ones", `{"do":"count","text":"` + long[:70_000] + `"}`, `{"allocs":2,"calls":4}`},
	} {
		if got := string(mustCall(t, x, step.input)); got != step.want {
			t.Errorf("%s: %s, want %s", step.name, got, step.want)
		}
	}
	out := string(mustCall(t, x, `{"a":1,"b":2,"name":"`+long+`"}`))
	wantContains(t, "output", out, `"greeting":"hello `+long+`"`)
}

// direct runs the goreactor or creactor module through an executor without
// an engine (env nil), as the benchmarks do.
func direct(t testing.TB, h *Host, guest string) runtime.Executor {
	t.Helper()
	return directBytes(h, mustGuest(t, guest))
}

// directBytes is direct for a module's bytes.
func directBytes(h *Host, mod []byte) runtime.Executor {
	return h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return mod, nil })
}

// call runs an operation whose asset id is fixed: Uploaded loads and
// hashes its module once.
func call(ctx context.Context, x runtime.Executor, input string) (json.RawMessage, error) {
	return x.Execute(ctx, &venue.Operation{Name: "wasm", Asset: venue.AssetID{0xca}}, json.RawMessage(input), nil)
}

// TestPools covers the bounds: broken instances are not reused, idle ones
// expire, and the live count never passes MaxInstances. Its hosts wait
// for compiles: the instances of an interpreted module, retired when the
// compile ends (tiers.go), would come and go beside the counts.
func TestPools(t *testing.T) {
	ctx := context.Background()
	t.Run("a broken instance is discarded", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true})
		x := direct(t, h, "creactor")
		mustCall(t, x, `{}`)
		if _, err := call(ctx, x, `{"do":"trap"}`); err == nil {
			t.Fatal("the trap went unnoticed")
		}
		wantCounts(t, h, 0, 0)
		mustCall(t, x, `{}`)
		wantCounts(t, h, 1, 1)
	})
	t.Run("a guest error keeps the instance", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true})
		x := direct(t, h, "creactor")
		if _, err := call(ctx, x, `{"do":"fail"}`); venue.ErrorCode(err) != venue.EINVALID {
			t.Fatalf("error %v, want EINVALID", err)
		}
		wantCounts(t, h, 1, 1)
	})
	t.Run("idle instances expire", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true, IdleTimeout: 50 * time.Millisecond})
		mustCall(t, direct(t, h, "creactor"), `{}`)
		wantCounts(t, h, 1, 1)
		deadline := time.Now().Add(5 * time.Second)
		for idle, _ := h.pools.counts(); idle > 0 && time.Now().Before(deadline); idle, _ = h.pools.counts() {
			time.Sleep(10 * time.Millisecond)
		}
		wantCounts(t, h, 0, 0)
	})
	t.Run("pools keep at most PoolSize idle", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true, PoolSize: 1})
		x := direct(t, h, "goreactor")
		mustParallel(t, x, 3)
		wantCounts(t, h, 1, 1)
	})
	t.Run("by default a busy spell's instances stay for the next", func(t *testing.T) {
		// Twelve instances busy at once on two cores: with 2 × GOMAXPROCS
		// kept, the next spell made eight instances again, about 5 ms each.
		// They are taken and held here rather than by twelve calls at once,
		// which on a loaded machine need not overlap.
		h := mustHost(t, Config{WaitForCompile: true})
		m, err := h.Compile(ctx, mustGuest(t, "goreactor"))
		if err != nil {
			t.Fatal(err)
		}
		key := poolKey{mod: m}
		busy := make([]*instance, 12)
		for i := range busy {
			if busy[i], err = h.pools.take(ctx, key); err != nil || busy[i] != nil {
				t.Fatalf("take %d: %v, %v; want a slot to fill", i, busy[i], err)
			}
			if busy[i], err = h.newInstance(ctx, key, nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, in := range busy {
			h.pools.put(in)
		}
		wantCounts(t, h, 12, 12)
	})
	t.Run("the oldest idle instance makes way at MaxInstances", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true, MaxInstances: 1})
		mustCall(t, direct(t, h, "creactor"), `{}`)
		mustCall(t, direct(t, h, "goreactor"), `{}`)
		wantCounts(t, h, 1, 1)
	})
	t.Run("callers wait for a slot at MaxInstances", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true, MaxInstances: 1})
		x := direct(t, h, "goreactor")
		mustCall(t, x, `{}`) // compiled and warm
		looping, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		done := make(chan error)
		go func() { _, err := call(looping, x, `{"do":"loop"}`); done <- err }()
		time.Sleep(50 * time.Millisecond)
		start := time.Now()
		if _, err := call(ctx, direct(t, h, "creactor"), `{}`); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited < 100*time.Millisecond {
			t.Errorf("the second call ran after %s, while the first still held the only slot", waited)
		}
		if err := <-done; err != context.DeadlineExceeded {
			t.Errorf("the looping call returned %v, want its context's error", err)
		}
		wantCounts(t, h, 1, 1)
	})
	t.Run("a closed host refuses calls", func(t *testing.T) {
		h := mustHost(t, Config{WaitForCompile: true})
		x := direct(t, h, "creactor")
		mustCall(t, x, `{}`)
		h.Close(ctx)
		if _, err := call(ctx, x, `{}`); venue.ErrorCode(err) != venue.EUNAVAILABLE {
			t.Errorf("error %v, want EUNAVAILABLE", err)
		}
	})
}

// mustHost starts a host sharing the suite's compile cache.
func mustHost(t testing.TB, cfg Config) *Host {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = filepath.Join(os.TempDir(), "venue-wasm-cache")
	}
	h, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func mustCall(t testing.TB, x runtime.Executor, input string) json.RawMessage {
	t.Helper()
	out, err := call(context.Background(), x, input)
	if err != nil {
		t.Fatalf("call %s: %v", input, err)
	}
	return out
}

// mustParallel makes n overlapping calls, each sleeping 100 ms in the guest.
func mustParallel(t *testing.T, x runtime.Executor, n int) {
	t.Helper()
	errs := make(chan error, n)
	for range n {
		go func() { _, err := call(context.Background(), x, `{"do":"sleep","size":100}`); errs <- err }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func wantCounts(t *testing.T, h *Host, idle, live int) {
	t.Helper()
	if i, l := h.pools.counts(); i != idle || l != live {
		t.Errorf("%d idle of %d live instances, want %d of %d", i, l, idle, live)
	}
}
