package wasm

import (
	"context"
	"encoding/json"
	"slices"
	"syscall"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// The benchmarks behind the Wasm cost targets (warm call p50 ≤ 60 µs,
// ≥ 25,000 calls/s on two cores, first call of a new 3 MB Go module ≤ 1.2 s,
// fresh-instance call ≤ 6 ms): run with
//
//	go test -run '^$' -bench . ./wasm/
//
// Calls go through the executors as the engine makes them (a job context
// with a deadline, so termination checks are on), without the engine's own
// job bookkeeping.

const benchInput = `{"a":40,"b":2,"name":"x"}`

// nativeInput and nativeSum mirror the Go guest's types: the native
// baseline does the same JSON work.
type nativeInput struct {
	Do    string            `json:"do"`
	A     int               `json:"a"`
	B     int               `json:"b"`
	Name  string            `json:"name"`
	Text  string            `json:"text"`
	Size  int               `json:"size"`
	Reqs  []json.RawMessage `json:"reqs"`
	Fn    string            `json:"fn"`
	Ptr   uint32            `json:"ptr"`
	Len   uint32            `json:"len"`
	Level uint32            `json:"level"`
}

type nativeSum struct {
	Sum      int    `json:"sum"`
	Greeting string `json:"greeting"`
	Op       string `json:"op"`
}

var native = runtime.ExecutorFunc(func(_ context.Context, op *venue.Operation, input json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	var in nativeInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	return json.Marshal(nativeSum{Sum: in.A + in.B, Greeting: "hello " + in.Name, Op: op.Name})
})

// BenchmarkWarmCall times one call of the trivial operation on a warm
// instance, against the same Go code run natively, and reports the median
// of the calls as p50-ns.
func BenchmarkWarmCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		exec func(b *testing.B) runtime.Executor
	}{
		{"native", func(*testing.B) runtime.Executor { return native }},
		{"go-reactor", builtinOf("benchreactor")},
		{"go-reactor-uploaded", func(b *testing.B) runtime.Executor { return direct(b, mustHost(b, Config{}), "benchreactor") }},
		{"c-reactor", builtinOf("creactor")},
		{"empty-guest", emptyGuest},
	} {
		b.Run(bc.name, func(b *testing.B) {
			x := bc.exec(b)
			ctx := jobContext(b)
			op := &venue.Operation{Name: "{}", Asset: venue.AssetID{0xbe}} // the name is the empty guest's output
			in := json.RawMessage(benchInput)
			for range 100 {
				mustExec(b, ctx, x, op, in)
			}
			samples := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				mustExec(b, ctx, x, op, in)
				samples = append(samples, time.Since(start))
			}
			reportPercentiles(b, samples)
		})
	}
}

// BenchmarkWarmCallParallel makes the warm call from GOMAXPROCS workers
// (two on the reference machine) and reports calls per second.
func BenchmarkWarmCallParallel(b *testing.B) {
	for _, name := range []string{"benchreactor", "creactor"} {
		b.Run(name, func(b *testing.B) {
			x := builtinOf(name)(b)
			ctx := jobContext(b)
			op := &venue.Operation{Name: "tb:add"}
			in := json.RawMessage(benchInput)
			mustExec(b, ctx, x, op, in)
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mustExec(b, ctx, x, op, in)
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}

// BenchmarkFirstCall times the first call of a module no process has seen:
// compile (no cache of any kind), instantiate and call. Each iteration
// changes a custom section so that the bytes are new. The call runs on the
// interpreter while the module compiles (tiers.go), or with "compiled"
// waits for the compile (Config.WaitForCompile).
func BenchmarkFirstCall(b *testing.B) {
	for _, name := range []string{"benchreactor", "creactor"} {
		for _, wait := range []bool{false, true} {
			sub := name
			if wait {
				sub += "/compiled"
			}
			b.Run(sub, func(b *testing.B) {
				wasm := mustGuest(b, name)
				ctx := jobContext(b)
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					h, mod := freshHost(b, ctx, Config{WaitForCompile: wait}, wasm, i)
					x := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return mod, nil })
					b.StartTimer()
					mustExec(b, ctx, x, &venue.Operation{Name: "wasm"}, json.RawMessage(benchInput))
					b.StopTimer()
					h.Close(ctx)
					b.StartTimer()
				}
				b.ReportMetric(float64(len(wasm)), "module-bytes")
			})
		}
	}
}

// BenchmarkCompile times the compile of a new module (instrumenting it
// too) on a fresh host, and reports the processor time it took
// (cpu-ms/op: the compile uses both processors, and its processor time
// varies less from run to run than its wall time).
func BenchmarkCompile(b *testing.B) {
	wasm := mustGuest(b, "benchreactor")
	ctx := context.Background()
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		h, mod := freshHost(b, ctx, Config{WaitForCompile: true}, wasm, i)
		before := processorTime()
		b.StartTimer()
		if _, err := h.Compile(ctx, mod); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processorTime() - before
		h.Close(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// freshHost returns a new host, and wasm made new to every cache by a
// custom section that holds i.
func freshHost(b *testing.B, ctx context.Context, cfg Config, wasm []byte, i int) (*Host, []byte) {
	h, err := New(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return h, withCustomSection(wasm, i)
}

// processorTime is the processor time the process has taken.
func processorTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFreshInstance times a command module's call, which instantiates
// a fresh instance every time.
func BenchmarkFreshInstance(b *testing.B) {
	for _, name := range []string{"gocommand", "ccommand"} {
		b.Run(name, func(b *testing.B) {
			h := mustHost(b, Config{})
			x := direct(b, h, name)
			ctx := jobContext(b)
			op := &venue.Operation{Name: "wasm", Asset: venue.AssetID{0xbe}}
			in := json.RawMessage(benchInput)
			mustExec(b, ctx, x, op, in)
			samples := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				mustExec(b, ctx, x, op, in)
				samples = append(samples, time.Since(start))
			}
			reportPercentiles(b, samples)
		})
	}
}

// emptyGuest does nothing: venue_run returns the op name the host wrote,
// "{}", as its output. It times the host's side of a call.
func emptyGuest(b *testing.B) runtime.Executor {
	x, err := mustHost(b, Config{}).Builtin(fakeReactor(8, 8<<32|2))
	if err != nil {
		b.Fatal(err)
	}
	return x
}

func builtinOf(guest string) func(b *testing.B) runtime.Executor {
	return func(b *testing.B) runtime.Executor {
		x, err := mustHost(b, Config{}).Builtin(mustGuest(b, guest))
		if err != nil {
			b.Fatal(err)
		}
		return x
	}
}

// jobContext is the benchmark's base context. Each call runs under a
// context of its own made from it as the engine makes a job's (cancel
// cause, then deadline), which is what makes wazero watch for termination.
func jobContext(b *testing.B) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	return ctx
}

func mustExec(b *testing.B, ctx context.Context, x runtime.Executor, op *venue.Operation, in json.RawMessage) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	out, err := x.Execute(ctx, op, in, nil)
	if err != nil || len(out) == 0 || out[0] != '{' {
		b.Fatalf("output %s, error %v", out, err)
	}
}

func reportPercentiles(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(samples[len(samples)*99/100].Nanoseconds()), "p99-ns")
}

// withCustomSection appends a custom section holding i, which changes the
// module's hash and nothing else.
func withCustomSection(wasm []byte, i int) []byte {
	payload := append(str("venue-bench"), uleb(uint64(i))...)
	out := append([]byte(nil), wasm...)
	out = append(out, 0x00)
	out = append(out, uleb(uint64(len(payload)))...)
	return append(out, payload...)
}
