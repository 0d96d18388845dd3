package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	goruntime "runtime"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// straightSpin is a reactor whose venue_run loops forever over a body of
// n dependent f64.sqrt and f64.add, with no loop or call inside: one check
// per iteration, however long the iteration runs.
func straightSpin(n int) []byte {
	one := binary.LittleEndian.AppendUint64([]byte{0x44}, math.Float64bits(1))
	body := []byte{0x03, 0x40, 0x41, 0x00, 0x41, 0x00, 0x2b, 0x03, 0x00}                // loop  i32.const 0  i32.const 0  f64.load
	body = append(body, bytes.Repeat(append(append([]byte{0x9f}, one...), 0xa0), n)...) // (f64.sqrt  f64.const 1  f64.add)*n
	body = append(body, 0x39, 0x03, 0x00, 0x0c, 0x00, 0x0b)                             // f64.store  br 0  end
	body = append(body, i64Const(2)...)
	return buildModule(nil, []wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: body},
	}, 1)
}

// quickReactor's venue_run writes {} at 0 and returns it.
func quickReactor() []byte {
	run := append(append(i32Const(0), i32Const(0x7d7b)...), 0x3b, 0x00, 0x00)
	return buildModule(nil, []wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: append(run, i64Const(2)...)},
	}, 1)
}

// fillSpin is a reactor whose venue_run fills its memory of pages pages
// whole, over and over: one bulk instruction an iteration.
func fillSpin(pages int) []byte {
	// loop  i32.const 0  i32.const 0  memory.size  i32.const 16  i32.shl  memory.fill  br 0  end
	body := []byte{0x03, 0x40, 0x41, 0x00, 0x41, 0x00, 0x3f, 0x00, 0x41, 0x10, 0x74, 0xfc, 0x0b, 0x00, 0x0c, 0x00, 0x0b}
	return buildModule(nil, []wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: append(body, i64Const(2)...)},
	}, pages)
}

// TestHost_LongWorkReachesRefuel: a guest whose loop does much work an
// iteration still reaches $refuel within milliseconds: so it hands its
// processor on (cpugate.go), lets a collection stop the world, and stops
// at its deadline. While fuel counted checks, one per iteration whatever
// the iteration's length, a loop body of 30,000 straight instructions
// went some 1.5 s between refuels (a body at maxFuncInstructions, about a
// minute), and a collection, which must stop it, waited as long several
// times over (7.3 s); now straight code has a check every maxStraight
// instructions, each paying for the instructions it guards. And while a
// bulk instruction cost an eighth of a refill whatever its size, eight
// fills of the whole memory ran between refuels; now each pays for its
// size, and one that costs more than a refill reaches $refuel first.
func TestHost_LongWorkReachesRefuel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages uint32
		spin  []byte
		most  time.Duration // for a collection, a turn or a stop
	}{
		// Before: 7.3 s for a collection, 1.3 s for a turn and a stop.
		{"a loop body of 30,000 straight instructions", 0, straightSpin(10_000), 200 * time.Millisecond},
		// Before: 2.8 s for a collection, 0.3 s for a turn and a stop;
		// now 0.12-0.36 s and 40 ms (a collection needs the guest at
		// $refuel several times, each after one fill of some 40 ms).
		{"fills of a 256 MiB memory", 4096, fillSpin(4096), 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reachesRefuel(t, Config{Processors: 1, MemoryLimitPages: tc.pages}, tc.spin, tc.most)
		})
	}
}

// reachesRefuel runs spin and checks that a collection, another call of
// uploaded code and a cancel each wait at most most.
func reachesRefuel(t *testing.T, cfg Config, spin []byte, most time.Duration) {
	h := mustHost(t, cfg)
	quick := quickReactor()
	xs := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return spin, nil })
	xq := h.Uploaded(func(context.Context, *runtime.Env, *venue.Operation) ([]byte, error) { return quick, nil })
	if _, err := h.Compile(context.Background(), spin); err != nil {
		t.Fatal(err)
	}
	if out, err := call(context.Background(), xq, `{}`); err != nil || string(out) != `{}` {
		t.Fatalf("quick: %s %v", out, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ended := make(chan time.Time, 1)
	go func() { call(ctx, xs, `{}`); ended <- time.Now() }()
	time.Sleep(300 * time.Millisecond) // spinning

	start := time.Now()
	goruntime.GC()
	gc := time.Since(start)

	start = time.Now()
	if out, err := call(context.Background(), xq, `{}`); err != nil || string(out) != `{}` {
		t.Fatalf("quick beside the spin: %s %v", out, err)
	}
	turn := time.Since(start)

	time.Sleep(50 * time.Millisecond) // the spin has the processor back
	cancelled := time.Now()
	cancel()
	stop := (<-ended).Sub(cancelled)
	t.Logf("a collection took %s, a call waiting for the processor %s, the stop %s", gc, turn, stop)
	if stop > most {
		t.Errorf("the cancelled guest ran on for %s", stop)
	}
	if gc > most {
		t.Errorf("a collection waited %s for the spinning guest to reach $refuel", gc)
	}
	if turn > most {
		t.Errorf("a call of uploaded code waited %s for the processor, slices being %s", turn, gateSlice)
	}
}
