package wasm

import "fmt"

// Static bounds on what one module may ask of the compiler and of each
// instance: the compiler's time and memory grow with these (nesting
// quadratically), and none of them is near what real guests use. Locals
// per function, a function's size and br_table targets are the JavaScript
// API's limits; the
// totals keep a small module from asking for gigabytes (an audit's 80 KB
// module of 10,000 functions of 50,000 locals each held 3.8 GB once
// compiled, and a 40 MB one of 10 million types took 28 s and 7 GB).
const (
	maxLocals       = 50_000    // per function
	maxFunctionSize = 7_654_321 // bytes of one function body (one of 24 MB took 1.5 GB to compile)
	maxModuleLocals = 4_000_000 // all functions together
	maxDepth        = 4_096     // blocks, loops and ifs open at once
	maxBrTable      = 65_520    // targets of one br_table
	maxFunctions    = 200_000   // imported and defined
	maxGlobals      = 10_000    // defined
	maxTypes        = 100_000   // function types
	maxSegments     = 100_000   // data segments, and element segments
	maxTableEntries = 1 << 20   // all tables together, also their maxima: 8 MiB of references
)

// Bounds on a function's code that keep its compile to a fraction of a
// second and some hundreds of megabytes, whatever the module's size. The
// compiler's time grows with the square of a function's basic blocks
// (its dominator and loop passes walk them per block), sequential as well
// as nested: one function of 8,000 sequential empty loops, 24 KB, took 12 s
// to compile, one of 32,000 `block (br_if 0) end` 17 s. Its memory grows
// with the instructions: 14 KB for each call_indirect, 5 KB for each load
// or store, 45 KB for each bulk instruction. Blocks are counted as the
// compiler makes them (funcCost.add): a br_table counted as one block took
// 9 s for 10 of 65,520 targets. And a loop costs in the square of the
// variables it reads (see instrumentFunc). The largest function of an
// 11 MB Go program has 3,604 basic blocks, 3 loops, 654 calls, 3,601 loads
// and stores, 31 bulk instructions and 22,772 instructions; that of the C
// test guests 832 basic blocks, 53 loops and 122,412 as loops times the
// square of its locals. The limits are 5 to 40 times those; the module's
// totals 4.6 (blocks squared: 218 million) and 7 (bulk: 2,785) times the
// Go program's: at the limits a compile took 0.3 to 2.3 s (docs/RATIONALE.md).
const (
	maxFuncBlocks       = 20_000        // per function, as weighed by funcCost.blocks
	maxFuncLoops        = 1_000         // per function
	maxFuncCalls        = 10_000        // call and call_indirect, per function
	maxFuncMemoryOps    = 40_000        // loads and stores, per function
	maxFuncBulk         = 1_000         // bulk memory and table instructions, per function
	maxFuncInstructions = 1_000_000     // per function
	maxFuncLoopLocals   = 250_000_000   // loops times the square of locals and parameters, per function
	maxModuleBlockCost  = 1_000_000_000 // the sum over functions of blocks squared
	maxModuleBulk       = 20_000        // all functions together (an 11 MB Go program: 2,785)
	maxModuleCalls      = 200_000       // all functions together (the venue's own module: 25,144)
	maxModuleMemoryOps  = 1_000_000     // all functions together (the venue's own module: 177,121)
)

// funcCost counts what drives the compile's cost of one function.
type funcCost struct {
	blocks       uint64 // the basic blocks the compiler makes (see add)
	loops        uint64
	calls        uint64
	memoryOps    uint64
	bulk         uint64
	instructions uint64
}

// add counts one instruction of kind, whose bytes are ins. A block or a
// br_if makes one basic block in wazero's compiler, an if three (then,
// else, after), a br_table one per target and its default; a loop makes
// two and a bulk instruction none, but the rewriter adds an if to each
// (and to each check it places in straight code: instrumentFunc).
func (c *funcCost) add(kind int, ins []byte) {
	c.instructions++
	switch kind {
	case opOpen:
		c.blocks++
		if ins[0] == 0x04 {
			c.blocks += 2
		}
	case opBranch:
		c.blocks++
		if ins[0] == 0x0e {
			c.blocks += uint64((&reader{b: ins, p: 1}).count())
		}
	case opLoop:
		c.blocks += 2 + 3
		c.loops++
	case opBulk:
		c.blocks += 3
		c.bulk++
	case opCall:
		c.calls++
	case opMemory:
		c.memoryOps++
	}
}

// What the compiler holds while it compiles a function, as measured per
// instruction (see the limits above): a basic block about 2 KB.
const (
	blockMemory  = 2 << 10
	callMemory   = 14 << 10
	memOpMemory  = 5 << 10
	bulkMemory   = 45 << 10
	worstFuncMem = maxFuncBlocks*blockMemory + maxFuncCalls*callMemory + maxFuncMemoryOps*memOpMemory + maxFuncBulk*bulkMemory
)

// compileMemory estimates the memory the compiler holds while it compiles
// the function: at most worstFuncMem (about 425 MB) within the limits; the
// heaviest function of the venue's own Go module about 30 MB.
func (c *funcCost) compileMemory() uint64 {
	return c.blocks*blockMemory + c.calls*callMemory + c.memoryOps*memOpMemory + c.bulk*bulkMemory
}

// addModule adds a function's cost to the module's, all's and blockCost's
// (the sum of blocks squared), and refuses a module past a bound.
func (all *funcCost) addModule(c funcCost, blockCost *uint64) error {
	all.calls += c.calls
	all.bulk += c.bulk
	all.memoryOps += c.memoryOps
	*blockCost += c.blocks * c.blocks
	switch {
	case *blockCost > maxModuleBlockCost:
		return fmt.Errorf("%w: the module's functions have too many blocks to compile in reasonable time: the sum of each function's blocks squared passes the venue's limit of %d; split large functions or upload fewer",
			errMalformed, maxModuleBlockCost)
	case all.calls > maxModuleCalls:
		return fmt.Errorf("%w: the module's functions have more than %d calls in all, the venue's limit", errMalformed, maxModuleCalls)
	case all.bulk > maxModuleBulk:
		return fmt.Errorf("%w: the module's functions have more than %d bulk memory and table instructions in all, the venue's limit", errMalformed, maxModuleBulk)
	case all.memoryOps > maxModuleMemoryOps:
		return fmt.Errorf("%w: the module's functions have more than %d loads and stores in all, the venue's limit", errMalformed, maxModuleMemoryOps)
	}
	return nil
}

// check refuses a function past one of the bounds, naming it.
func (c *funcCost) check() error {
	for _, b := range []struct {
		n, most uint64
		what    string
	}{
		{c.instructions, maxFuncInstructions, "instructions"},
		{c.loops, maxFuncLoops, "loops"},
		{c.blocks, maxFuncBlocks, "basic blocks (block and br_if make one, if three, loop five, a bulk instruction three, br_table one per target, and the venue adds three for each check it places, one for a function's way out and six for each exit check)"},
		{c.calls, maxFuncCalls, "calls"},
		{c.memoryOps, maxFuncMemoryOps, "loads and stores"},
		{c.bulk, maxFuncBulk, "bulk memory and table instructions"},
	} {
		if b.n > b.most {
			return fmt.Errorf("%w: the function has more than %d %s, which the venue cannot compile in reasonable time and memory; split it into smaller functions",
				errMalformed, b.most, b.what)
		}
	}
	return nil
}

// codeLimits is what the module's code may refer to: the host's own
// global and function come after these, and an index at or past them is
// refused (wazero validates the instrumented module, where such an index
// would reach the host's countdown).
type codeLimits struct {
	globals, funcs uint32
}

// instrumentCode rewrites the code section: each function body gets check
// after its locals (unless it starts with a loop, whose check comes at
// once) and after the block type of each of its loops, and bulk before
// each bulk memory or table instruction; and the accounting of its frame
// on the global depth (see frame). frames holds each function's frame.
//
// It also returns what compiling its two heaviest functions at once would
// hold (compileMemory), which decides whether the module may compile on
// two goroutines (Host.compile).
func instrumentCode(body []byte, check checkCode, bulk []byte, lim codeLimits, frames []frame) ([]byte, uint64, error) {
	r := &reader{b: body}
	n := r.count()
	out := appendU32(make([]byte, 0, len(body)+len(body)/16), n)
	total, blockCost := uint64(0), uint64(0)
	var all funcCost       // calls and memory operations of the functions so far
	var heaviest [2]uint64 // the two largest compileMemory, largest first
	if int(n) != len(frames) {
		return nil, 0, fmt.Errorf("%w: the code section has %d bodies for %d functions", errMalformed, n, len(frames))
	}
	for i := range n {
		size := r.u32()
		if r.err == nil && size > maxFunctionSize {
			return nil, 0, fmt.Errorf("%w: function %d of the code section has %d bytes; the venue takes at most %d", errMalformed, i, size, maxFunctionSize)
		}
		fn := r.bytes(int(size))
		if r.err != nil {
			return nil, 0, r.err
		}
		code, locals, cost, err := instrumentFunc(fn, check, bulk, lim, frames[i])
		if err != nil {
			return nil, 0, fmt.Errorf("function %d of the code section: %w", i, err)
		}
		if total += locals; total > maxModuleLocals {
			return nil, 0, fmt.Errorf("%w: the module's functions declare over %d locals in all, the venue's limit", errMalformed, maxModuleLocals)
		}
		if err := all.addModule(cost, &blockCost); err != nil {
			return nil, 0, fmt.Errorf("%w (at function %d of the code section)", err, i)
		}
		if m := cost.compileMemory(); m > heaviest[1] {
			heaviest[1] = m
			if m > heaviest[0] {
				heaviest[0], heaviest[1] = m, heaviest[0]
			}
		}
		out = appendU32(out, uint32(len(code)))
		out = append(out, code...)
	}
	if r.err == nil && r.p != len(body) {
		return nil, 0, fmt.Errorf("%w: bytes after the last function body", errMalformed)
	}
	return out, heaviest[0] + heaviest[1], r.err
}

// frame is what a function's accounting of its frame on the call stack
// needs: its parameter count, for its local's index and its weight, and
// the global that sums the weights; and the block type of its results
// (fnType), for its ways out.
type frame struct {
	params, depth uint32
	block         byte
}

// entry is the code at the start of a function of locals locals, whose
// sum is kept in local lvl:
//
//	global.get $depth  i32.const weight  i32.add  local.tee $lvl  global.set $depth
//	local.get $lvl  i32.const maxStackSlots  i32.gt_u  if  unreachable  end
func (f frame) entry(locals uint64) []byte {
	lvl := appendU32(nil, f.params+uint32(locals))
	c := append(appendU32([]byte{0x23}, f.depth), 0x41)
	c = append(appendS32(c, int32(uint64(f.params)+locals+frameSlots)), 0x6a, 0x22)
	c = append(append(c, lvl...), 0x24)
	c = append(append(appendU32(c, f.depth), 0x20), lvl...)
	c = append(appendS32(append(c, 0x41), maxStackSlots), 0x4b, 0x04, 0x40, 0x00, 0x0b)
	return c
}

// returnDepth is the weight of the frames on the call stack from which on
// a function's exit check runs: the frames under it return, at most 1,024
// of them, each to at most exitCost instructions (as weighed), without one.
const returnDepth = 2048

// exitCost is what an exit check pays for: the code a return runs to in
// the caller, which reaches a check, a call or a return of its own within
// maxAfterCall instructions (as weighed) and the one that passes it
// (region.due).
const exitCost = maxAfterCall + memoryWeight

// exit is the code before each of a function's ways out, its exit check:
//
//	local.get $lvl  i32.const returnDepth  i32.gt_u  if  check(exitCost)  end
//
// The code a return runs to was paid for by the caller's check before the
// call, but it runs only once the call returns, which may be much later: a
// recursion as deep as maxStackSlots allows pays for every frame's code on
// the way down (where the refuels it reaches forget what it paid), and on
// the way back ran it all with no check (an audit's recursion of 170,000
// frames with 245 dependent loads after its call went 6.9 s without
// reaching $refuel). Checks after calls, where the code did not soon reach
// a check, a call or a return, took 13,218 in a 3 MB Go module, its
// compile 20 % longer; a function has fewer ways out (5,738 there), and
// all lead to one place once its body is a block, the way out, whose
// returns become branches to its end (2,120 exit checks; a function of
// several results, which a block names by a type the module may lack,
// has one before each way out).
func (f frame) exit(locals uint64, check checkCode) []byte {
	c := appendU32([]byte{0x20}, f.params+uint32(locals))
	c = append(appendS32(append(c, 0x41), returnDepth), 0x4b, 0x04, 0x40)
	at := len(c) + check.weightAt
	c = append(append(c, check.code...), 0x0b)
	copy(c[at:], putWeight(nil, exitCost))
	return c
}

// restore is the code after each call: local.get $lvl  global.set $depth.
func (f frame) restore(locals uint64) []byte {
	return appendU32(append(appendU32([]byte{0x20}, f.params+uint32(locals)), 0x24), f.depth)
}

// instrumentFunc rewrites one function body, and returns the number of
// locals it declares and what its compile will cost. The function gets
// one local more, $lvl (see frame).
func instrumentFunc(fn []byte, check checkCode, bulk []byte, lim codeLimits, f frame) ([]byte, uint64, funcCost, error) {
	r := &reader{b: fn}
	locals := uint64(0)
	groups := r.count()
	start := r.p
	for range groups { // local declarations: a count and a type each
		locals += uint64(r.u32())
		r.byte()
	}
	if r.err != nil {
		return nil, 0, funcCost{}, r.err
	}
	if locals > maxLocals {
		return nil, 0, funcCost{}, fmt.Errorf("%w: a function declares %d locals; the venue takes at most %d", errMalformed, locals, maxLocals)
	}
	var cost funcCost
	out := appendU32(make([]byte, 0, len(fn)+len(check.code)*4+32), groups+1)
	out = append(append(out, fn[start:r.p]...), 0x01, 0x7f) // $lvl, an i32
	out = append(out, f.entry(locals)...)
	if f.block != 0 {
		out = append(out, 0x02, f.block) // the way out (see frame.exit)
		cost.blocks++
	}
	restore := f.restore(locals)
	g := region{check: check, weight: -1}
	exit := f.exit(locals, check)
	if r.p >= len(fn) || fn[r.p] != 0x03 {
		out = g.start(out)
	}
	copied, depth := r.p, 0
	var labels []label // the blocks, ifs and loops open, innermost last
	for r.p < len(fn) {
		if g.due() {
			out = g.start(append(out, fn[copied:r.p]...))
			copied = r.p
			cost.blocks += 3 // the check's if
		}
		at := r.p
		kind, err := r.instruction(lim)
		if err != nil {
			return nil, 0, cost, err
		}
		if cost.add(kind, fn[at:r.p]); cost.instructions&0xff == 0 || r.p == len(fn) {
			if err := cost.check(); err != nil {
				return nil, 0, cost, err
			}
		}
		g.count(kind)
		if exits(fn[at:r.p], len(labels)) {
			switch {
			case f.block == 0: // each way out has its exit check
				out = append(append(out, fn[copied:at]...), exit...)
				copied = at
				cost.blocks += 6 // the depth test's if and the check's
			case fn[at] == 0x0f: // return: a branch to the end of the way out
				out = appendU32(append(append(out, fn[copied:at]...), 0x0c), uint32(len(labels)))
				copied = r.p
			case fn[at] == 0x0b: // the function's end: the way out's, then the exit check
				out = append(append(append(out, fn[copied:at]...), 0x0b), exit...)
				copied = at
				cost.blocks += 6
				g.count(opEnd)
			}
		}
		var target landing // what begins where a branch may land right after it
		labels, target = g.branches(labels, fn[at:r.p])
		switch {
		case kind == opLoop || target == landsTested:
			out = g.start(append(out, fn[copied:r.p]...))
			copied = r.p
			if target == landsTested {
				cost.blocks += 3 // its if
			}
		case target == landsPaid:
			out = g.startPaid(append(out, fn[copied:r.p]...))
			copied = r.p
		case kind == opCall:
			out = append(append(out, fn[copied:r.p]...), restore...)
			copied = r.p
		case kind == opBulk:
			out = append(append(out, fn[copied:at]...), bulk...)
			copied = at
		}
		if kind == opLoop || kind == opOpen {
			if depth++; depth > maxDepth {
				return nil, 0, cost, fmt.Errorf("%w: blocks nest deeper than %d", errMalformed, maxDepth)
			}
		} else if kind == opEnd {
			depth--
		}
	}
	if len(fn) == 0 || fn[len(fn)-1] != 0x0b {
		return nil, 0, cost, fmt.Errorf("%w: a function body does not end with end", errMalformed)
	}
	if err := cost.check(); err != nil {
		return nil, 0, cost, err
	}
	// The compiler's SSA builder gives each loop's header a value for every
	// variable read within, and its passes over them grow with the square
	// of the variables: 200 nested loops reading 10,000 locals took 18 s,
	// one loop reading 50,000 2.8 s.
	vars := locals + uint64(f.params)
	if cost.loops*vars*vars > maxFuncLoopLocals {
		return nil, 0, cost, fmt.Errorf("%w: the function has %d loops and %d locals and parameters; the venue compiles at most %d loops times the square of the locals, in reasonable time; use fewer locals or loops, or split the function",
			errMalformed, cost.loops, vars, maxFuncLoopLocals)
	}
	out = append(out, fn[copied:]...)
	g.end(out)
	return out, locals, cost, nil
}

// region follows the straight code since a function's last check, while
// instrumentFunc rewrites it, and writes the checks' weights once they are
// known.
//
// A check pays for the code from it to the next check: a region. A check
// is placed at the function's entry, at each loop's head, when the code
// since the last check grows long (due), and where a branch lands from
// another region (branches), where a payment, a check without its test,
// may do (label).
type region struct {
	check     checkCode
	weight    int       // where in the output the region's check's weight is; -1 before the first
	n         uint32    // instructions since it, as weighed
	serial    int       // counts the regions begun
	tested    bool      // the region begins with a check, not a payment
	sinceTest uint32    // instructions since the last check, as weighed
	call      sinceCall // since the last call, by any way here
}

// sinceCall is whether a call came since a region's check, by any way to a
// point of its code, and if so the most instructions (as weighed) since:
// a branch may skip the last call before it in the code.
type sinceCall struct {
	called bool
	n      uint32
}

// join is what two ways to one point know together.
func (s sinceCall) join(o sinceCall) sinceCall {
	switch {
	case !o.called:
		return s
	case !s.called:
		return o
	}
	return sinceCall{called: true, n: max(s.n, o.n)}
}

// start ends the current region and begins one with a check at the end of
// out.
func (g *region) start(out []byte) []byte {
	g.sinceTest, g.call = 0, sinceCall{}
	return g.begin(out, g.check.code, true)
}

// startPaid ends the current region and begins one with a payment at the
// end of out.
func (g *region) startPaid(out []byte) []byte {
	return g.begin(out, g.check.payment(), false)
}

// begin ends the current region and begins one with code, a check or its
// payment, at the end of out.
func (g *region) begin(out, code []byte, tested bool) []byte {
	g.end(out)
	g.weight = len(out) + g.check.weightAt
	g.n = 0
	g.serial++
	g.tested = tested
	return append(out, code...)
}

// end writes the weight of the current region's check.
func (g *region) end(out []byte) {
	if g.weight >= 0 {
		var w [5]byte
		copy(out[g.weight:], putWeight(w[:0], max(g.n, 1)))
	}
}

// memoryWeight is what a load or store weighs in a region: one that misses
// the caches waits for memory a hundred times as long as most instructions
// take. Weighing one, a chase of dependent loads through a 64 MiB memory
// went 20-25 ms between refuels (a collection waited 60-95 ms).
const memoryWeight = 4

// count counts an instruction of kind into the region.
func (g *region) count(kind int) {
	w := uint32(1)
	if kind == opMemory {
		w = memoryWeight
	}
	g.n += w
	g.sinceTest += w
	g.call.n += w
	if kind == opCall {
		g.call = sinceCall{called: true}
	}
}

// due reports whether the region needs a check before its next instruction.
func (g *region) due() bool {
	return g.sinceTest >= maxStraight || g.call.called && g.call.n >= maxAfterCall
}

// label is what region knows of a block, if or loop open: the regions its
// branches come from. A region is paid for at its start, and runs from
// there, so code a branch reaches must lie in the region the branch comes
// from, or begin a region: a block's end and an if's else and end (a
// loop's branches reach its head, which has a check). Code after a check
// that a branch jumped over ran unpaid: an audit's loop of `block  br 0
// loop end  end` and a thousand instructions paid 3 an iteration, and went
// 37 s without reaching $refuel.
//
// Such a region begins with a payment, no test, when every way to it
// comes from a region that began with a check: a test then comes within
// two runs of straight code (the one of the branch, and the one it lands
// in, up to maxStraight since the last check before it in the code, or a
// branch, which lands on a check from a region that began with a
// payment). A check at every landing, 17,328 in a 3 MB Go module, took
// 15-19 % of its compile's processor time (each adds an if and a call);
// with payments at 16,884 of them the compile takes 15 % less.
type label struct {
	loop, isIf, hasElse bool
	ifFrom              int       // the region of an if: its false edge's
	ifTested            bool      // that region began with a check
	ifCall              sinceCall // at the if
	from                int       // the region of the first branch to its end; -1 for none
	untested            bool      // a branch to its end comes from a region that began with a payment
	call                sinceCall // at the branches to its end
}

// landing is what begins where a branch may land: nothing, where every
// way there comes from the region it lies in; a payment; or a check.
type landing int

const (
	landsInRegion landing = iota
	landsPaid
	landsTested
)

// branches follows the control instruction ins through labels, and
// reports what must begin right after it, where a branch may land.
func (g *region) branches(labels []label, ins []byte) ([]label, landing) {
	to := func(depth uint32) { // a branch to the label depth out
		if uint64(depth) >= uint64(len(labels)) {
			return // the function's: a return
		}
		l := &labels[len(labels)-1-int(depth)]
		if l.from < 0 {
			l.from = g.serial // regions only grow: the first is the earliest
		}
		l.untested = l.untested || !g.tested
		l.call = l.call.join(g.call)
	}
	r := &reader{b: ins, p: 1}
	switch ins[0] {
	case 0x02: // block
		labels = append(labels, label{from: -1})
	case 0x03: // loop
		labels = append(labels, label{loop: true, from: -1})
	case 0x04: // if
		labels = append(labels, label{isIf: true, ifFrom: g.serial, ifTested: g.tested, ifCall: g.call, from: -1})
	case 0x05: // else: the then arm goes on to the end, the false edge lands here
		if len(labels) == 0 || !labels[len(labels)-1].isIf {
			return labels, landsInRegion // invalid: the compiler refuses it
		}
		to(0)
		l := &labels[len(labels)-1]
		l.hasElse = true
		g.call = l.ifCall // the false edge is the way in
		return labels, landingFrom(l.ifFrom != g.serial, !l.ifTested)
	case 0x0b: // end
		if len(labels) == 0 {
			return labels, landsInRegion // the function's
		}
		l := labels[len(labels)-1]
		labels = labels[:len(labels)-1]
		if l.loop {
			return labels, landsInRegion
		}
		falseEdge := l.isIf && !l.hasElse
		if g.call = g.call.join(l.call); falseEdge {
			g.call = g.call.join(l.ifCall)
		}
		fromOther := l.from >= 0 && l.from != g.serial || falseEdge && l.ifFrom != g.serial
		return labels, landingFrom(fromOther, l.untested || falseEdge && !l.ifTested)
	case 0x0c, 0x0d: // br, br_if
		to(r.u32())
	case 0x0e: // br_table
		for range r.count() + 1 { // the targets and the default
			to(r.u32())
		}
	}
	return labels, landsInRegion
}

// landingFrom is what begins where branches land: a region if one may come
// from another region, with a check if one may come from a region that
// began with a payment.
func landingFrom(fromOther, fromUntested bool) landing {
	switch {
	case !fromOther:
		return landsInRegion
	case fromUntested:
		return landsTested
	}
	return landsPaid
}

// exits reports whether the instruction ins, inside open blocks, ifs and
// loops, may leave the function: a return, the function's end, or a
// branch to the function's label.
func exits(ins []byte, open int) bool {
	r := &reader{b: ins, p: 1}
	switch ins[0] {
	case 0x0f: // return
		return true
	case 0x0b: // end
		return open == 0
	case 0x0c, 0x0d: // br, br_if
		return uint64(r.u32()) >= uint64(open)
	case 0x0e: // br_table
		for range r.count() + 1 {
			if uint64(r.u32()) >= uint64(open) {
				return true
			}
		}
	}
	return false
}

// What instrumentFunc needs to know of an instruction.
const (
	opPlain = iota
	opOpen  // block, if
	opLoop
	opEnd
	opBulk   // memory.init/copy/fill, table.init/copy/grow/fill: work in proportion to an operand
	opCall   // call, call_indirect
	opBranch // br_if, br_table: a block of their own each, for the compiler
	opMemory // loads and stores
)

// instruction reads one instruction and reports whether it is a loop. Its
// immediates are read exactly as the binary format of WebAssembly 2.0 lays
// them out; an opcode outside it is refused, since after one the decoder
// could not know where the next instruction starts.
func (r *reader) instruction(lim codeLimits) (kind int, err error) {
	at := r.p
	op := r.byte()
	switch {
	case op == 0x02 || op == 0x04: // block, if
		r.s33()
		kind = opOpen
	case op == 0x03: // loop
		r.s33()
		kind = opLoop
	case op == 0x0b:
		kind = opEnd
	case op == 0x23 || op == 0x24: // global.get, global.set
		if i := r.u32(); r.err == nil && i >= lim.globals {
			return 0, fmt.Errorf("%w: global %d at byte %d does not exist", errMalformed, i, at)
		}
	case op == 0x10 || op == 0xd2: // call, ref.func
		if i := r.u32(); r.err == nil && i >= lim.funcs {
			return 0, fmt.Errorf("%w: function %d at byte %d does not exist", errMalformed, i, at)
		}
		if op == 0x10 {
			kind = opCall
		}
	case op == 0x0d: // br_if
		r.u32()
		kind = opBranch
	case op == 0x0c || (op >= 0x20 && op <= 0x26):
		r.u32() // br, local.*, table.get/set
	case op == 0x0e: // br_table
		n := r.count()
		if r.err == nil && n > maxBrTable {
			return 0, fmt.Errorf("%w: a br_table has %d targets; the venue takes at most %d", errMalformed, n, maxBrTable)
		}
		for range n {
			r.u32()
		}
		r.u32() // the default
		kind = opBranch
	case op == 0x11: // call_indirect: type, table
		r.u32()
		r.u32()
		kind = opCall
	case op == 0x1c: // select with types
		r.bytes(int(r.count()))
	case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
		r.u32()
		r.u32()
		kind = opMemory
	case op == 0x3f || op == 0x40: // memory.size, memory.grow: memory 0
		r.u32()
	case op == 0x41:
		r.leb(5) // i32.const
	case op == 0x42:
		r.leb(10) // i64.const
	case op == 0x43:
		r.bytes(4) // f32.const
	case op == 0x44:
		r.bytes(8) // f64.const
	case op == 0xd0: // ref.null: a reference type
		r.byte()
	case op == 0xfc:
		if r.prefixedFC() {
			kind = opBulk
		}
	case op == 0xfd:
		if r.prefixedSIMD() {
			kind = opMemory
		}
	case op <= 0x01 || op == 0x05 || op == 0x0f || op == 0x1a || op == 0x1b ||
		op == 0xd1 || (op >= 0x45 && op <= 0xc4):
		// no immediates
	default:
		return 0, fmt.Errorf("%w: instruction 0x%02x at byte %d is not WebAssembly 2.0", errMalformed, op, at)
	}
	return kind, r.err
}

// prefixedFC reads the immediates of the 0xfc instructions: saturating
// truncations, bulk memory and table operations. It reports whether the
// instruction does work in proportion to an operand.
func (r *reader) prefixedFC() (bulk bool) {
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		r.u32()
		r.u32()
		return true
	case sub == 11, sub == 15, sub == 17: // memory.fill, table.grow, table.fill
		r.u32()
		return true
	case sub == 9, sub == 13, sub == 16: // data.drop, elem.drop, table.size
		r.u32()
	default:
		r.fail("0xfc instruction %d is not WebAssembly 2.0", sub)
	}
	return false
}

// prefixedSIMD reads the immediates of the 0xfd (vector) instructions. It
// reports whether the instruction loads or stores.
func (r *reader) prefixedSIMD() (memory bool) {
	switch sub := r.u32(); {
	case sub <= 0x0b || sub == 0x5c || sub == 0x5d: // loads, store, load_zero: memarg
		r.u32()
		r.u32()
		return true
	case sub == 0x0c || sub == 0x0d: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 0x15 && sub <= 0x22: // extract_lane, replace_lane
		r.byte()
	case sub >= 0x54 && sub <= 0x5b: // load_lane, store_lane: memarg, lane
		r.u32()
		r.u32()
		r.byte()
		return true
	case sub <= 0xff:
		// no immediates (an unassigned opcode is refused by the compiler)
	default:
		r.fail("0xfd instruction %d is not WebAssembly 2.0", sub)
	}
	return false
}
