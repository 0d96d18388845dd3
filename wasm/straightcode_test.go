package wasm

import (
	"bytes"
	"cmp"
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
	body := append([]byte{0x03, 0x40}, f64Work(n)...)             // loop  work
	return reactorRunning(append(body, 0x0c, 0x00, 0x0b), nil, 1) // br 0  end
}

// quickReactor's venue_run writes {} at 0 and returns it.
func quickReactor() []byte {
	return reactorRunning(append(append(i32Const(0), i32Const(0x7d7b)...), 0x3b, 0x00, 0x00), nil, 1) // i32.store16
}

// fillSpin is a reactor whose venue_run fills its memory of pages pages
// whole, over and over: one bulk instruction an iteration.
func fillSpin(pages int) []byte {
	// loop  i32.const 0  i32.const 0  memory.size  i32.const 16  i32.shl  memory.fill  br 0  end
	body := []byte{0x03, 0x40, 0x41, 0x00, 0x41, 0x00, 0x3f, 0x00, 0x41, 0x10, 0x74, 0xfc, 0x0b, 0x00, 0x0c, 0x00, 0x0b}
	return reactorRunning(body, nil, pages)
}

// f64Work is k dependent f64.sqrt and f64.add on the f64 at address 0:
// 3k+4 instructions.
func f64Work(k int) []byte {
	one := binary.LittleEndian.AppendUint64([]byte{0x44}, math.Float64bits(1))
	w := []byte{0x41, 0x00, 0x41, 0x00, 0x2b, 0x03, 0x00}                         // i32.const 0  i32.const 0  f64.load
	w = append(w, bytes.Repeat(append(append([]byte{0x9f}, one...), 0xa0), k)...) // (f64.sqrt  f64.const 1  f64.add)*k
	return append(w, 0x39, 0x03, 0x00)                                            // f64.store
}

// skipSpin is a reactor whose venue_run loops forever over units of
// `block  br 0  loop end  end` and 964 instructions of work: the work lies
// past the head of a loop that never runs, whose check the br jumps over.
func skipSpin(units int) []byte {
	body := []byte{0x03, 0x40} // loop
	for range units {
		body = append(body, 0x02, 0x40, 0x0c, 0x00, 0x03, 0x40, 0x0b, 0x0b) // block  br 0  loop  end  end
		body = append(body, f64Work(320)...)
	}
	body = append(body, 0x0c, 0x00, 0x0b) // br 0  end
	return reactorRunning(body, nil, 1)
}

// reactorRunning is a reactor whose venue_run is body (returning {} at 0),
// with more functions after it, from index 3.
func reactorRunning(body []byte, more []wfunc, pages int) []byte {
	return reactorImporting(nil, body, more, pages)
}

// reactorImporting is reactorRunning for a module that imports from the
// host: venue_run's calls of them are to function indices 0 on.
func reactorImporting(imports []wimport, body []byte, more []wfunc, pages int) []byte {
	return buildModule(imports, append([]wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(8)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: append(body, i64Const(2)...)},
	}, more...), pages)
}

// chaseSetup is code that links the 2^24 words of a 64 MiB memory into
// one cycle in an order of no stride (word x holds the address of word
// x*1103515245+12345 mod 2^24), counting in local 0.
func chaseSetup() []byte {
	b := []byte{0x41, 0x00, 0x21, 0x00, 0x03, 0x40}                           // i32.const 0  local.set 0  loop
	b = append(b, 0x20, 0x00, 0x41, 0x02, 0x74, 0x20, 0x00, 0x41)             // local.get 0  i32.const 2  i32.shl  local.get 0  i32.const a
	b = append(append(b, sleb(1103515245)...), 0x6c, 0x41)                    // i32.mul  i32.const c
	b = append(append(b, sleb(12345)...), 0x6a, 0x41)                         // i32.add  i32.const 2^24-1
	b = append(append(b, sleb(1<<24-1)...), 0x71, 0x41, 0x02, 0x74)           // i32.and  i32.const 2  i32.shl
	b = append(b, 0x36, 0x02, 0x00, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x22, 0x00) // i32.store  local.get 0  i32.const 1  i32.add  local.tee 0
	b = append(append(b, 0x41), sleb(1<<24)...)                               // i32.const 2^24
	return append(b, 0x49, 0x0d, 0x00, 0x0b)                                  // i32.lt_u  br_if 0  end
}

// loads is k dependent loads: i32.load*k.
func loads(k int) []byte { return bytes.Repeat([]byte{0x28, 0x02, 0x00}, k) }

// chaseSpin is a reactor whose venue_run chases pointers through its 64 MiB
// forever, in a loop of 3,000 dependent loads.
func chaseSpin() []byte {
	body := append(chaseSetup(), 0x41, 0x00, 0x21, 0x01, 0x03, 0x40, 0x20, 0x01) // i32.const 0  local.set 1  loop  local.get 1
	body = append(append(body, loads(3000)...), 0x21, 0x01, 0x0c, 0x00, 0x0b)    // local.set 1  br 0  end
	return reactorRunning(body, nil, 1024)
}

// unwindSpin is a reactor whose venue_run recurses 170,000 calls deep, over
// and over, through a function whose code after its call is 245 dependent
// loads through its 64 MiB: each frame runs them on the way back.
func unwindSpin() []byte {
	body := append(append(chaseSetup(), 0x03, 0x40), i32Const(170_000)...)                // loop  i32.const 170000
	body = append(body, 0x10, 0x03, 0x0c, 0x00, 0x0b)                                     // call rec  br 0  end
	rec := []byte{0x20, 0x00, 0x04, 0x40, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x03, 0x0b} // local.get 0  if  local.get 0  i32.const 1  i32.sub  call rec  end
	rec = append(append(append(rec, 0x20, 0x00, 0x41, 0x02, 0x74), loads(245)...), 0x1a)  // local.get 0  i32.const 2  i32.shl  i32.load*245  drop
	return reactorRunning(body, []wfunc{{params: []byte{tI32}, body: rec}}, 1024)
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
// size, and one that costs more than a refill reaches $refuel first. A
// branch over a check paid nothing for the code it reached (a collection
// waited 37 s); a recursion's unwinding ran every frame's code after its
// call unchecked (6.9 s); a chase of loads through memory ran 20-25 ms
// between refuels (a collection waited 60-95 ms).
func TestHost_LongWorkReachesRefuel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages uint32
		spin  []byte
		most  time.Duration // for a collection, a turn or a stop
		turn  time.Duration // for a turn, if less
	}{
		// Before: 7.3 s for a collection, 1.3 s for a turn and a stop.
		{"a loop body of 30,000 straight instructions", 0, straightSpin(10_000), 200 * time.Millisecond, 0},
		// Before: 2.8 s for a collection, 0.3 s for a turn and a stop;
		// now 0.12-0.36 s and 40 ms (a collection needs the guest at
		// $refuel several times, each after one fill of some 40 ms).
		{"fills of a 256 MiB memory", 4096, fillSpin(4096), 1500 * time.Millisecond, 0},
		// Before: 37 s for a collection. Now some 3 ms.
		{"work a branch reaches over a check", 0, skipSpin(100), 200 * time.Millisecond, 0},
		// Before: 6.9 s. Now some 20-30 ms, as for the chase below.
		{"loads as a deep recursion unwinds", 1024, unwindSpin(), 200 * time.Millisecond, 0},
		// Before: 20-50 ms for a turn (a refuel's interval; 60-95 ms for a
		// collection). Now 0.3-7 ms (and 12-50 ms for a collection, which
		// with this memory takes 20 ms beside any guest).
		{"a chase of loads through 64 MiB", 1024, chaseSpin(), 200 * time.Millisecond, 15 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reachesRefuel(t, Config{Processors: 1, MemoryLimitPages: tc.pages}, tc.spin, tc.most, cmp.Or(tc.turn, tc.most))
		})
	}
}

// reachesRefuel runs spin and checks that a collection and a cancel each
// wait at most most, and another call of uploaded code at most turnMost.
// A collection and a turn count at their best of tries: on a machine busy
// with other tests one of them can wait out the operating system (a
// collection took 322 ms once, beside the store suite, where it takes
// 4-16 ms), while the guest that misses its checks misses every one.
func reachesRefuel(t *testing.T, cfg Config, spin []byte, most, turnMost time.Duration) {
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

	gc, turn := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range tries {
		start := time.Now()
		goruntime.GC()
		gc = min(gc, time.Since(start))

		start = time.Now()
		if out, err := call(context.Background(), xq, `{}`); err != nil || string(out) != `{}` {
			t.Fatalf("quick beside the spin: %s %v", out, err)
		}
		turn = min(turn, time.Since(start))
		time.Sleep(50 * time.Millisecond) // the spin has the processor back
	}

	cancelled := time.Now()
	cancel()
	stop := (<-ended).Sub(cancelled)
	t.Logf("at best of %d, a collection took %s, a call waiting for the processor %s; the stop %s", tries, gc, turn, stop)
	if stop > most {
		t.Errorf("the cancelled guest ran on for %s", stop)
	}
	if gc > most {
		t.Errorf("a collection waited %s for the spinning guest to reach $refuel", gc)
	}
	if turn > turnMost {
		t.Errorf("a call of uploaded code waited %s for the processor, slices being %s", turn, gateSlice)
	}
}

// tries is how many collections and turns reachesRefuel times.
const tries = 3
