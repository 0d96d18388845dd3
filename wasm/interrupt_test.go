package wasm

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// TestInstrument_Guests instruments every test guest: each still compiles,
// keeps its exports, and carries the check at every function entry and
// loop head.
func TestInstrument_Guests(t *testing.T) {
	for _, name := range []string{"goreactor", "gocommand", "benchreactor", "creactor", "ccommand"} {
		t.Run(name, func(t *testing.T) {
			mod := mustGuest(t, name)
			out, _, err := instrument(mod)
			if err != nil {
				t.Fatal(err)
			}
			mustBeInstrumented(t, mod, out)
			// The interpreter validates a module as the compiler does, in a
			// fraction of the time (under -race the compiler took 40 s for
			// each Go guest); the host's tests run these guests compiled.
			ctx := context.Background()
			rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
			defer rt.Close(ctx)
			before, err := rt.CompileModule(ctx, mod)
			if err != nil {
				t.Fatal(err)
			}
			after, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Fatalf("the instrumented module does not compile: %v", err)
			}
			for name := range before.ExportedFunctions() {
				if after.ExportedFunctions()[name] == nil {
					t.Errorf("export %s is lost", name)
				}
			}
		})
	}
}

// TestInstrument_Spins checks the checks of the hostile guests that
// TestHost_LongWorkReachesRefuel times, by their shape: each passed its
// checks for seconds once (a branch over a check, a deep recursion's
// unwinding), which checkBodies finds without a clock.
func TestInstrument_Spins(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  []byte
	}{
		{"straight code", straightSpin(10_000)},
		{"fills", fillSpin(1)},
		{"branches over checks", skipSpin(100)},
		{"a chase of loads", chaseSpin()},
		{"a deep recursion", unwindSpin()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := instrument(tc.mod)
			if err != nil {
				t.Fatal(err)
			}
			mustBeInstrumented(t, tc.mod, out)
		})
	}
}

// mustBeInstrumented walks the instrumented code section with the
// instrument's own decoder and checks the check is where it must be.
func mustBeInstrumented(t *testing.T, original, out []byte) {
	t.Helper()
	var m moduleShape
	secs, err := splitSections(original)
	if err == nil {
		err = m.read(secs)
	}
	if err != nil {
		t.Fatal(err)
	}
	// The instrumented code may name the host's globals and function.
	lim := codeLimits{globals: m.tmpGlobal() + 1, funcs: m.refuelFunc() + 1}
	secs, err = splitSections(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.id == secCode {
			checkBodies(t, s.body, &m, lim)
		}
	}
}

// TestInstrument_WaysOut checks that a function returns what it did
// before its returns became branches to the end of its way out, and that
// a function of two results, whose ways out keep their own exit checks,
// does too: by return, by a branch to the function's label, and at its
// end, deep in the call stack or not.
func TestInstrument_WaysOut(t *testing.T) {
	// block  local.get 0  br_if 0  i32.const 7  return  end
	// local.get 0  i32.const 2  i32.eq  if  i32.const 8  br 1  end  i32.const 9
	one := []byte{0x02, 0x40, 0x20, 0x00, 0x0d, 0x00, 0x41, 0x07, 0x0f, 0x0b,
		0x20, 0x00, 0x41, 0x02, 0x46, 0x04, 0x40, 0x41, 0x08, 0x0c, 0x01, 0x0b, 0x41, 0x09}
	// The same with i32.const 1 after each result.
	two := []byte{0x02, 0x40, 0x20, 0x00, 0x0d, 0x00, 0x41, 0x07, 0x41, 0x01, 0x0f, 0x0b,
		0x20, 0x00, 0x41, 0x02, 0x46, 0x04, 0x40, 0x41, 0x08, 0x41, 0x01, 0x0c, 0x01, 0x0b, 0x41, 0x09, 0x41, 0x01}
	// Calls itself (function 2) local 1 deep, then returns one's result for
	// local 0.
	deep := []byte{0x20, 0x01, 0x04, 0x40, 0x20, 0x00, 0x20, 0x01, 0x41, 0x01, 0x6b, 0x10, 0x02, 0x0f, 0x0b, 0x20, 0x00, 0x10, 0x00}
	mod := buildModule(nil, []wfunc{
		{export: "one", params: []byte{tI32}, results: []byte{tI32}, body: one},
		{export: "two", params: []byte{tI32}, results: []byte{tI32, tI32}, body: two},
		{export: "deep", params: []byte{tI32, tI32}, results: []byte{tI32}, body: deep},
	}, 1)
	out, _, err := instrument(mod)
	if err != nil {
		t.Fatal(err)
	}
	mustBeInstrumented(t, mod, out)
	m := mustInstrumented(t, mod)
	for _, tc := range []struct {
		fn   string
		args []uint64
		want []uint64
	}{
		{"one", []uint64{0}, []uint64{7}},
		{"one", []uint64{1}, []uint64{9}},
		{"one", []uint64{2}, []uint64{8}},
		{"two", []uint64{0}, []uint64{7, 1}},
		{"two", []uint64{1}, []uint64{9, 1}},
		{"two", []uint64{2}, []uint64{8, 1}},
		{"deep", []uint64{2, 3000}, []uint64{8}}, // past returnDepth: the exit checks run
	} {
		got, err := m.ExportedFunction(tc.fn).Call(context.Background(), tc.args...)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s%v = %v, %v; want %v", tc.fn, tc.args, got, err, tc.want)
		}
	}
}

// maxUnpaid is the most instructions (as weighed) that may run between
// checks or payments: those of a region, which ends once the code since
// the last check weighs maxStraight, and the instruction that passes it.
// maxUnchecked is the most between checks: a region of a branch, and the
// one it lands in with a payment (label).
const (
	maxUnpaid    = maxStraight + memoryWeight
	maxUnchecked = 2 * maxUnpaid
)

// checkBodies checks that each function but $refuel starts with its
// frame's entry and then the check or a loop, that each loop starts with
// the check, each bulk instruction follows the bulk check and each call is
// followed by the frame's restore; that each check and payment weighs at
// least the instructions that may run, by any way the branches take,
// before the next, and that no more than maxStraight come between checks
// in straight code, nor maxUnpaid (as weighed) between checks or payments
// by any way, nor maxUnchecked between checks; and that each way out of a
// function follows its exit check, which pays for what a return runs to:
// at most exitCost (as weighed) before a check, a payment, a call or a
// return.
func checkBodies(t *testing.T, code []byte, m *moduleShape, lim codeLimits) {
	t.Helper()
	check, bulk, frames := m.check(), m.bulkCheck(), m.frames()
	r := &reader{b: code}
	n := r.count()
	for i := range n - 1 { // the last is $refuel, unchecked
		fn := r.bytes(int(r.u32()))
		f := &reader{b: fn}
		locals := uint64(0)
		for range f.count() {
			locals += uint64(f.u32())
			f.byte()
		}
		fr := frames[i]
		entry, restore, exit := fr.entry(locals-1), fr.restore(locals-1), fr.exit(locals-1, check) // $lvl is the last local
		if !bytes.HasPrefix(fn[f.p:], entry) {
			t.Fatalf("function %d does not start with its frame's entry", i)
		}
		f.p += len(entry)
		body := f.p // after the way out's block, if any, which opens a label as any block does
		if fr.block != 0 {
			if !bytes.HasPrefix(fn[f.p:], []byte{0x02, fr.block}) {
				t.Fatalf("function %d does not start with the block of its way out", i)
			}
			body += 2
		}
		if !check.matches(fn[body:]) && fn[body] != 0x03 {
			t.Fatalf("function %d does not start with the check or a loop", i)
		}
		// The code as a list of checks and instructions (the instrument's
		// own bulk checks and restores left out), with where each block,
		// if and loop ends.
		type item struct {
			at     int
			check  bool
			pay    bool // a payment: a check without its test
			exit   bool // an exit check
			weight uint32
			op     byte
			ins    []byte
			kind   int
			end    int // of a block, if or loop: its end's item; of an if: its else's, if any, in alt
			alt    int
		}
		var items []item
		var open []int
		since := 0
		for f.p < len(fn) {
			if bytes.HasPrefix(fn[f.p:], bulk) {
				f.p += len(bulk)
				continue
			}
			if check.matches(fn[f.p:]) {
				items = append(items, item{at: f.p, check: true, weight: (&reader{b: fn, p: f.p + check.weightAt}).u32()})
				f.p += len(check.code)
				since = 0
				continue
			}
			if check.matchesPayment(fn[f.p:]) {
				items = append(items, item{at: f.p, pay: true, weight: (&reader{b: fn, p: f.p + check.weightAt}).u32()})
				f.p += check.paysTo
				continue
			}
			if bytes.HasPrefix(fn[f.p:], exit) {
				items = append(items, item{at: f.p, exit: true})
				f.p += len(exit)
				continue
			}
			at := f.p
			kind, err := f.instruction(lim)
			if err != nil {
				t.Fatalf("function %d: %v", i, err)
			}
			it := item{at: at, op: fn[at], ins: fn[at:f.p], kind: kind, end: -1, alt: -1}
			if kind != opLoop { // a loop's check follows at once
				since++
			}
			if since > maxStraight {
				t.Fatalf("function %d: %d instructions without a check at byte %d", i, since, at)
			}
			if exits(it.ins, len(open)) && (len(items) == 0 || !items[len(items)-1].exit) {
				t.Fatalf("function %d: a way out at byte %d without the exit check", i, at)
			}
			switch {
			case kind == opLoop && !check.matches(fn[f.p:]):
				t.Fatalf("function %d: a loop at byte %d without the check", i, f.p)
			case kind == opBulk && !bytes.HasSuffix(fn[:at], bulk):
				t.Fatalf("function %d: a bulk instruction at byte %d without the bulk check", i, at)
			case kind == opCall && !bytes.HasPrefix(fn[f.p:], restore):
				t.Fatalf("function %d: a call at byte %d without the frame's restore after it", i, at)
			case kind == opCall:
				f.p += len(restore)
			}
			switch it.op {
			case 0x02, 0x03, 0x04:
				open = append(open, len(items))
			case 0x05:
				if len(open) > 0 && items[open[len(open)-1]].op == 0x04 { // else, out of an if, is invalid
					items[open[len(open)-1]].alt = len(items)
				}
			case 0x0b:
				if len(open) > 0 {
					items[open[len(open)-1]].end = len(items)
					open = open[:len(open)-1]
				}
			}
			items = append(items, it)
		}
		if len(open) > 0 {
			return // unbalanced: the compiler refuses it
		}
		// Branches go forward, but to a loop's head.
		var labels []int // the open blocks, ifs and loops, by item, as at k
		// The labels open at each item are needed for branches: walk
		// forward once to record them.
		at := make([][]int, len(items))
		for k, it := range items {
			at[k] = labels
			switch it.op {
			case 0x02, 0x03, 0x04:
				labels = append(slices.Clone(labels), k)
			case 0x0b:
				if len(labels) > 0 {
					labels = labels[:len(labels)-1]
				}
			}
		}
		// most returns, for each item k, the most instructions (as weighed)
		// that may run from it on before an item for which stops holds.
		most := func(stops func(item) bool) []uint32 {
			cost := make([]uint32, len(items)+1)
			reach := func(k int, d uint32) uint32 { // a branch at k to the label d out
				ls := at[k]
				if int(d) >= len(ls) || fr.block != 0 && int(d) == len(ls)-1 {
					return 0 // a return, or a branch to the way out
				}
				if o := items[ls[len(ls)-1-int(d)]]; o.op == 0x03 {
					return 0 // the loop's head: its check
				} else {
					return cost[o.end+1]
				}
			}
			for k := len(items) - 1; k >= 0; k-- {
				it := items[k]
				next := cost[k+1]
				ins := &reader{b: it.ins, p: 1}
				switch {
				case stops(it):
					cost[k] = 0
					continue
				case it.check || it.pay || it.exit:
					cost[k] = next
					continue
				case it.op == 0x0c:
					next = reach(k, ins.u32())
				case it.op == 0x0d:
					next = max(next, reach(k, ins.u32()))
				case it.op == 0x0e:
					next = 0
					for range ins.count() + 1 {
						next = max(next, reach(k, ins.u32()))
					}
				case it.op == 0x04 && it.alt >= 0:
					next = max(next, cost[it.alt+1])
				case it.op == 0x04 && it.end >= 0:
					next = max(next, cost[it.end+1])
				case it.op == 0x05:
					if ls := at[k]; len(ls) > 0 && items[ls[len(ls)-1]].op == 0x04 && items[ls[len(ls)-1]].end >= 0 {
						next = cost[items[ls[len(ls)-1]].end+1]
					}
				case it.op == 0x0f || it.op == 0x00:
					next = 0
				}
				w := uint32(1)
				if it.kind == opMemory {
					w = memoryWeight
				}
				cost[k] = w + next
			}
			return cost
		}
		// Each check and payment pays for what may run before the next.
		unpaid := most(func(it item) bool { return it.check || it.pay })
		for k, it := range items {
			if (it.check || it.pay) && it.weight < unpaid[k+1] {
				t.Fatalf("function %d: the check at byte %d weighs %d, and %d instructions may run before the next", i, it.at, it.weight, unpaid[k+1])
			}
		}
		// No way through the branches runs long before a check, and none
		// from a call back to a check, a call or a return longer than the
		// callee's exit check paid for.
		if n := slices.Max(unpaid); n > maxUnpaid {
			t.Fatalf("function %d: %d instructions (as weighed) may run without a check or payment", i, n)
		}
		if n := slices.Max(most(func(it item) bool { return it.check })); n > maxUnchecked {
			t.Fatalf("function %d: %d instructions (as weighed) may run without a check", i, n)
		}
		tail := most(func(it item) bool { return it.check || it.pay || it.kind == opCall })
		for k, it := range items {
			if it.kind == opCall && tail[k+1] > exitCost {
				t.Fatalf("function %d: the call at byte %d returns to %d instructions (as weighed) before a check, a call or a return", i, it.at, tail[k+1])
			}
		}
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
}

func TestInstrument_Refusals(t *testing.T) {
	spin := wfunc{export: "spin", body: []byte{0x03, 0x40, 0x0c, 0x00, 0x0b}} // loop br 0 end
	valid := buildModule(nil, []wfunc{spin}, 1)
	withStart := append(bytes.Clone(valid), 0x08, 0x01, 0x00) // a start section after the code: out of order
	for _, tc := range []struct {
		name, want string
		module     []byte
	}{
		{"not wasm", "invalid magic number", []byte("not wasm at all")},
		{"truncated", "runs past the end", valid[:len(valid)-3]},
		{"a start section", "start section is not supported",
			insertSection(valid, 8, []byte{0x00})},
		{"the reserved export", "reserved for the venue",
			buildModule(nil, []wfunc{{export: interruptExport, body: nil}}, 1)},
		{"a tail call", "is not WebAssembly 2.0",
			buildModule(nil, []wfunc{{export: "f", body: []byte{0x12, 0x00}}}, 1)},
		{"a threads instruction", "is not WebAssembly 2.0",
			buildModule(nil, []wfunc{{export: "f", body: []byte{0xfe, 0x03, 0x00}}}, 1)},
		{"a count beyond the bytes", "exceeds the bytes left",
			buildModule(nil, []wfunc{{export: "f", body: []byte{0x0e, 0xff, 0xff, 0xff, 0xff, 0x0f}}}, 1)},
		{"sections out of order", "out of order", withStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := instrument(tc.module)
			if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("instrument: %v, want a refusal containing %q", err, tc.want)
			}
		})
	}
}

// times repeats code n times.
func times(n int, code ...byte) []byte { return bytes.Repeat(code, n) }

// insertSection puts a section with id and body among module's, in order.
func insertSection(module []byte, id byte, body []byte) []byte {
	secs, _ := splitSections(module)
	out := bytes.Clone(module[:8])
	done := false
	for _, s := range secs {
		if !done && s.id != secCustom && sectionRank[s.id] > sectionRank[id] {
			out = append(append(append(out, id), appendU32(nil, uint32(len(body)))...), body...)
			done = true
		}
		out = append(append(append(out, s.id), appendU32(nil, uint32(len(s.body)))...), s.body...)
	}
	if !done {
		out = append(append(append(out, id), appendU32(nil, uint32(len(body)))...), body...)
	}
	return out
}

// TestInstrument_Stops runs instrumented modules in a plain wazero runtime
// (no termination checks) and stops them through the exported global: a
// loop, and a recursion without loops that would take ages, in modules with
// and without a memory of their own.
func TestInstrument_Stops(t *testing.T) {
	spin := wfunc{export: "run", body: []byte{0x03, 0x40, 0x0c, 0x00, 0x0b}} // loop br 0 end
	// fib(n) = n < 2 ? n : fib(n-1) + fib(n-2), on fib(60): no loop at all.
	fib := wfunc{params: []byte{tI32}, results: []byte{tI32}, body: []byte{
		0x20, 0x00, 0x41, 0x02, 0x49, 0x04, 0x7f, 0x20, 0x00, 0x05, // local.get 0  i32.const 2  i32.lt_u  if (result i32)  local.get 0  else
		0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, // fib(n-1)
		0x20, 0x00, 0x41, 0x02, 0x6b, 0x10, 0x00, 0x6a, 0x0b}} // fib(n-2) i32.add end
	callFib := wfunc{export: "run", body: []byte{0x41, 0x3c, 0x10, 0x00, 0x1a}}
	for _, tc := range []struct {
		name string
		mod  []byte
	}{
		{"a loop", buildModule(nil, []wfunc{spin}, 1)},
		{"a loop, no memory", buildModule(nil, []wfunc{spin}, -1)},
		{"a recursion", buildModule(nil, []wfunc{fib, callFib}, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := mustInstrumented(t, tc.mod)
			done := make(chan error, 1)
			go func() { _, err := mod.ExportedFunction("run").Call(context.Background()); done <- err }()
			time.Sleep(50 * time.Millisecond)
			// The guest runs on; a collection must not wait for it.
			gc := make(chan struct{})
			go func() { runtime.GC(); close(gc) }()
			select {
			case <-gc:
			case <-time.After(5 * time.Second):
				t.Fatal("a collection waited on the spinning guest")
			}
			mod.ExportedGlobal(interruptExport).(api.MutableGlobal).Set(1)
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "unreachable") {
					t.Fatalf("the guest ended with %v, want the interrupt's trap", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the guest did not stop")
			}
		})
	}
}

func mustInstrumented(t *testing.T, module []byte) api.Module {
	t.Helper()
	out, _, err := instrument(module)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.Instantiate(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// FuzzInstrument: whatever bytes arrive, instrument refuses them, or
// returns a module the compiler refuses, or one whose checks checkBodies
// finds where they must be; and never panics.
func FuzzInstrument(f *testing.F) {
	spin := wfunc{export: "spin", body: []byte{0x03, 0x40, 0x0c, 0x00, 0x0b}}
	f.Add(buildModule(nil, []wfunc{spin}, 1))
	f.Add(buildModule([]wimport{{mod: "venue", name: "call", params: []byte{tI32, tI32}, results: []byte{tI64}}}, []wfunc{spin}, -1))
	f.Add(buildModule(nil, []wfunc{{export: "f", body: []byte{0x02, 0x40, 0x03, 0x7f, 0x41, 0x01, 0x0b, 0x1a, 0x0b}}}, 1))
	// Branches over checks: block  br_if 0  loop end  end; if  loop end  else  end; if  loop end  end
	f.Add(buildModule(nil, []wfunc{{export: "f", params: []byte{tI32}, body: []byte{0x02, 0x40, 0x20, 0x00, 0x0d, 0x00, 0x03, 0x40, 0x0b, 0x0b, 0x01,
		0x20, 0x00, 0x04, 0x40, 0x03, 0x40, 0x0b, 0x05, 0x01, 0x0b, 0x20, 0x00, 0x04, 0x40, 0x03, 0x40, 0x0b, 0x0b, 0x01}}}, 1))
	f.Add(skipSpin(3))
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	f.Cleanup(func() { rt.Close(ctx) })
	f.Fuzz(func(t *testing.T, module []byte) {
		out, _, err := instrument(module)
		if err != nil {
			return
		}
		// What the compiler refuses never runs, however it is checked (a
		// function's end before its last byte, say); the interpreter
		// validates as the compiler does.
		c, err := rt.CompileModule(ctx, out)
		if err != nil {
			return
		}
		c.Close(ctx)
		mustBeInstrumented(t, module, out)
	})
}

// TestInstrument_Bounds checks what instrument refuses or bounds so that a
// module cannot reach the host's own globals and function, nor make the
// compiler or an instance take time or memory without end.
func TestInstrument_Bounds(t *testing.T) {
	one := func(body ...byte) []byte { return buildModule(nil, []wfunc{{export: "f", body: body}}, 1) }
	many := func(n int, body []byte) []byte {
		fns := make([]wfunc, n)
		for i := range fns {
			fns[i].body = body
		}
		return buildModule(nil, fns, 1)
	}
	table := func(module []byte, limits ...byte) []byte {
		return insertSection(module, secTable, append([]byte{0x01, 0x70}, limits...))
	}
	for _, tc := range []struct {
		name, want string
		module     []byte
	}{
		{"setting the host's countdown", "global 1 at byte", one(0x41, 0x00, 0x24, 0x01)},
		{"reading a global that is not there", "global 0 at byte", one(0x23, 0x00, 0x1a)},
		{"calling the host's function", "function 1 at byte", one(0x10, 0x01)},
		{"a reference to the host's function", "function 1 at byte", one(0xd2, 0x01, 0x1a)},
		{"a br_table past the bound", "targets; the venue takes at most 65520",
			one(append(append([]byte{0x02, 0x40, 0x41, 0x00, 0x0e}, uleb(maxBrTable+1)...), append(bytes.Repeat([]byte{0x00}, maxBrTable+2), 0x0b)...)...)},
		{"blocks nested too deep", "blocks nest deeper than 4096",
			one(append(bytes.Repeat([]byte{0x02, 0x40}, maxDepth+1), bytes.Repeat([]byte{0x0b}, maxDepth+1)...)...)},
		{"an imported global", "imports a global",
			insertSection(one(0x01), secImport, append(append(append([]byte{0x01}, str("venue")...), str("g")...), 0x03, 0x7f, 0x00))},
		{"an imported table", "imports a table",
			insertSection(one(0x01), secImport, append(append(append([]byte{0x01}, str("env")...), str("t")...), 0x01, 0x70, 0x00, 0x01))},
		{"a table too large to begin with", "(table 0 with 134217728)", table(one(0x01), append([]byte{0x00}, uleb(1<<27)...)...)},
		{"tables too large together", "(table 1 with 524289)", insertSection(one(0x01), secTable,
			append(append(append([]byte{0x02, 0x70, 0x00}, uleb(1<<19+1)...), 0x70, 0x00), uleb(1<<19+1)...))},
		{"too many types", "100001 function types", insertSection([]byte("\x00asm\x01\x00\x00\x00"), secType, append(uleb(maxTypes+1), make([]byte, maxTypes+1)...))},
		{"too many data segments", "100001 data segments", insertSection(one(0x01), secData, append(uleb(maxSegments+1), make([]byte, maxSegments+1)...))},
		{"too many element segments", "100001 element segments", insertSection(one(0x01), secElem, append(uleb(maxSegments+1), make([]byte, maxSegments+1)...))},
		{"too many globals", "defines 10001 globals", insertSection(one(0x01), secGlobal, uleb(maxGlobals+1))},
		{"too many functions", "functions; the venue takes at most", insertSection(buildModule(nil, nil, 1), secFunction, uleb(maxFunctions+1))},
		// Sequential, not nested: what the compiler's time and memory grow with.
		{"too many loops", "more than 1000 loops", one(times(maxFuncLoops+1, 0x03, 0x40, 0x0b)...)},
		{"too many blocks", "more than 20000 basic blocks", one(times(maxFuncBlocks+1, 0x02, 0x40, 0x0b)...)},
		{"too many br_ifs", "more than 20000 basic blocks", one(times(maxFuncBlocks+1, 0x41, 0x00, 0x0d, 0x00)...)},
		{"a br_table's targets", "more than 20000 basic blocks", one(append(append([]byte{0x02, 0x40, 0x41, 0x00, 0x0e}, uleb(maxFuncBlocks)...), append(make([]byte, maxFuncBlocks+1), 0x0b)...)...)},
		{"ifs weigh three blocks", "more than 20000 basic blocks", one(times(maxFuncBlocks/3+1, 0x41, 0x00, 0x04, 0x40, 0x0b)...)},
		{"too many calls", "more than 10000 calls", one(times(maxFuncCalls+1, 0x10, 0x00)...)},
		{"too many loads", "more than 40000 loads and stores", one(times(maxFuncMemoryOps+1, 0x41, 0x00, 0x28, 0x02, 0x00, 0x1a)...)},
		{"too many bulk instructions", "more than 1000 bulk", one(times(maxFuncBulk+1, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xfc, 0x0b, 0x00)...)},
		{"too many instructions", "more than 1000000 instructions", one(times(maxFuncInstructions+1, 0x01)...)},
		{"too many blocks in all", "blocks squared passes the venue's limit of 1000000000; split large functions or upload fewer (at function 2 ",
			many(3, times(maxFuncBlocks-200, 0x02, 0x40, 0x0b))}, // with the checks straight code gets, 3 blocks a maxStraight instructions
		{"too many calls in all", "more than 200000 calls in all, the venue's limit (at function 20 ",
			many(21, times(maxFuncCalls, 0x10, 0x00))},
		{"too many bulk instructions in all", "more than 20000 bulk memory and table instructions in all, the venue's limit (at function 20 ",
			many(21, times(maxFuncBulk, 0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xfc, 0x0b, 0x00))},
		{"too many loads in all", "more than 1000000 loads and stores in all, the venue's limit (at function 25 ",
			many(26, times(maxFuncMemoryOps, 0x41, 0x00, 0x28, 0x02, 0x00, 0x1a))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := instrument(tc.module)
			if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("instrument: %v, want a refusal containing %q", err, tc.want)
			}
		})
	}
	t.Run("too many locals", func(t *testing.T) {
		fn := append(append([]byte{0x01}, uleb(maxLocals+1)...), tI32, 0x0b)
		if _, _, _, err := instrumentFunc(fn, checkCode{}, nil, codeLimits{}, frame{}); err == nil || !strings.Contains(err.Error(), "declares 50001 locals") {
			t.Fatalf("instrumentFunc: %v", err)
		}
	})
	t.Run("too many locals for its loops", func(t *testing.T) {
		fn := append(append(append([]byte{0x01}, uleb(1000)...), tI32), times(maxFuncLoopLocals/1_000_000+1, 0x03, 0x40, 0x0b)...)
		fn = append(fn, 0x0b)
		if _, _, _, err := instrumentFunc(fn, checkCode{}, nil, codeLimits{}, frame{}); err == nil || !strings.Contains(err.Error(), "has 251 loops and 1000 locals and parameters") {
			t.Fatalf("instrumentFunc: %v", err)
		}
	})
	t.Run("too many locals in all", func(t *testing.T) {
		fn := append(append([]byte{0x01}, uleb(maxLocals)...), tI32, 0x0b)
		n := maxModuleLocals/maxLocals + 1
		code := uleb(uint64(n))
		for range n {
			code = append(append(code, uleb(uint64(len(fn)))...), fn...)
		}
		if _, _, err := instrumentCode(code, checkCode{}, nil, codeLimits{}, make([]frame, n)); err == nil || !strings.Contains(err.Error(), "over 4000000 locals in all") {
			t.Fatalf("instrumentCode: %v", err)
		}
	})
	t.Run("a function too large", func(t *testing.T) {
		fn := append(append([]byte{0x00}, bytes.Repeat([]byte{0x01}, maxFunctionSize)...), 0x0b)
		code := append(append(uleb(1), uleb(uint64(len(fn)))...), fn...)
		if _, _, err := instrumentCode(code, checkCode{}, nil, codeLimits{}, make([]frame, 1)); err == nil || !strings.Contains(err.Error(), "has 7654323 bytes; the venue takes at most 7654321") {
			t.Fatalf("instrumentCode: %v", err)
		}
	})
	t.Run("tables share one bound", func(t *testing.T) {
		// Three tables with no maximum, and one that asks for 10 entries at most.
		body := []byte{0x04, 0x70, 0x00, 0x05, 0x70, 0x00, 0x00, 0x70, 0x01, 0x02, 0x0a, 0x70, 0x00, 0x01}
		out, err := boundTables(body)
		if err != nil {
			t.Fatal(err)
		}
		r := &reader{b: out}
		var least, most []uint32
		for range r.count() {
			r.byte()
			if r.byte() != 0x01 {
				t.Fatalf("a table without a maximum in %x", out)
			}
			least, most = append(least, r.u32()), append(most, r.u32())
		}
		// The first takes the room to grow; the fourth, with none left, keeps its minimum.
		want := []uint32{maxTableEntries - 2 - 1, 0, 2, 1} // the first: all but what the others start with
		if r.err != nil || !slices.Equal(most, want) || !slices.Equal(least, []uint32{5, 0, 2, 1}) {
			t.Fatalf("tables %v..%v, want maxima %v", least, most, want)
		}
	})
	t.Run("a table grows no further than the bound", func(t *testing.T) {
		// ref.null func  i32.const 2^21  table.grow 0
		grow := wfunc{export: "grow", results: []byte{tI32}, body: []byte{0xd0, 0x70, 0x41, 0x80, 0x80, 0x80, 0x01, 0xfc, 0x0f, 0x00}}
		for _, limits := range [][]byte{{0x00, 0x01}, {0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f}} { // no maximum; the largest
			mod := mustInstrumented(t, table(buildModule(nil, []wfunc{grow}, 1), limits...))
			res, err := mod.ExportedFunction("grow").Call(context.Background())
			if err != nil || int32(res[0]) != -1 {
				t.Fatalf("table.grow by 2^21 = %v, %v; want -1 (refused)", res, err)
			}
		}
	})
	t.Run("bulk instructions pay for their size", func(t *testing.T) {
		// loop  i32.const 0  i32.const 0  i32.const 65536  memory.fill 0  br 0  end
		fill := wfunc{export: "run", body: []byte{0x03, 0x40, 0x41, 0x00, 0x41, 0x00, 0x41, 0x80, 0x80, 0x04, 0xfc, 0x0b, 0x00, 0x0c, 0x00, 0x0b}}
		mod := buildModule(nil, []wfunc{fill}, 1)
		out, _, err := instrument(mod)
		if err != nil {
			t.Fatal(err)
		}
		mustBeInstrumented(t, mod, out)
	})
}

// TestInstrument_CompileMemory checks the estimate instrument gives of
// what compiling a module's two heaviest functions at once holds: the
// lighter third function does not count.
func TestInstrument_CompileMemory(t *testing.T) {
	loads := func(n int) []byte { return times(n, 0x41, 0x00, 0x28, 0x02, 0x00, 0x1a) }                   // i32.const 0  i32.load  drop
	ifs := times(10, 0x41, 0x00, 0x04, 0x40, 0x0b)                                                        // i32.const 0  if  end
	mod := buildModule(nil, []wfunc{{export: "a", body: loads(100)}, {body: ifs}, {body: loads(150)}}, 1) // no straight check: 150 loads weigh 900
	_, shape, err := instrument(mod)
	if err != nil {
		t.Fatal(err)
	}
	if want, pair := uint64(250*memOpMemory+2*7*blockMemory), shape.pairMemory; pair != want {
		t.Fatalf("pair = %d, want %d (the 150 and 100 loads, and each function's way out and exit check; the 10 ifs weigh %d)", pair, want, 30*blockMemory)
	}
}
