package wasm

import (
	"bytes"
	"errors"
	"fmt"
)

// How the host stops a guest. wazero can stop a running guest only with
// WithCloseOnContextDone, which compiles every loop header into an exit to
// Go and makes Go guest code about four times slower (reference/WASM.md).
// Instead the host rewrites every module before compiling it, much as
// wasmtime's epoch interruption does in its compiler, with globals and
// one function of its own:
//
//   - $fuel counts down at the entry of every function, the head of every
//     loop, in straight code every maxStraight instructions (and
//     maxAfterCall after a call), and where a branch lands past a check
//     (there, where every way comes from code that began with a check, a
//     payment: the check without its test), each by the instructions it
//     comes before, up to the next (loads and stores weigh memoryWeight);
//     at a function's end, where its returns lead, while the call stack is
//     deep, by the code a return runs to (its exit check, frame.exit); and
//     before every bulk memory or table instruction by the size it is given
//     (bulkCheck, which keeps the size in $tmp). A guest that runs on
//     keeps reaching these checks, and pays for the code it runs, whatever
//     way its branches take (region in interruptcode.go).
//   - When $fuel goes below 0, $refuel runs: memory.grow 0, which wazero
//     compiles as an exit to Go, lets the Go runtime stop the world for a
//     collection (machine code is never preempted, and a guest that spun
//     without reaching Go would hold up every goroutine of the venue); then
//     it traps if the host has set $interrupt, and refills $fuel. The
//     host also has wazero call Go at $refuel's entry (refuelListener), where
//     uploaded code hands its processor on (cpugate.go).
//   - $interrupt is exported as interruptExport; the host sets it to 1, in
//     the listener at $refuel's entry, once the call's context has ended
//     (refuelListener).
//   - $depth bounds the call stack, which wazero grows to hundreds of
//     megabytes outside the memory limit (an audit's 32 recursing calls
//     took 5 GB). Every function adds its frame's weight (parameters,
//     locals and frameSlots) to $depth at its entry, keeps the sum in a
//     local of its own, traps past maxStackSlots, and sets $depth back to
//     that sum after each of its calls returns. $depth is exported as
//     depthExport; the host zeroes it before each call into the guest.
//
// A check costs a load, a subtraction and a test; $refuel runs once every
// fuelPerRefuel instructions or so. A module without a memory gets an empty
// one, for memory.grow.

// interruptExport is the name of the global the instrumented module
// exports; a module that exports the name itself is refused.
const interruptExport = "venue_interrupt"

// depthExport is the name under which $depth is exported.
const depthExport = "venue_depth"

// maxStackSlots bounds the weight of the frames on a guest's call stack:
// about 8 MiB at wazero's measured 8 to 16 bytes per parameter or local
// (TestInstrument_CallDepth), some 170,000 calls of a one-parameter
// function.
const maxStackSlots = 1 << 19

// frameSlots is what a frame weighs beyond its parameters and locals.
const frameSlots = 2

// fuelPerRefuel is how many instructions of the guest's (as the checks
// weigh them) run between two exits to Go: some tens of microseconds, so
// a stop or a collection waits no longer.
const fuelPerRefuel = 1 << 17

// Bounds on a region of straight code, which one check pays for: a check
// is placed in straight code once a region has maxStraight instructions,
// or maxAfterCall after a call. A loop whose body is a long run of straight
// code paid one check an iteration however long the run, and went seconds
// between exits to Go (an audit's body of 30,000 instructions; a minute at
// maxFuncInstructions), for which every goroutine of the venue waits at a
// collection. The check after a call bounds what a return runs to before a
// check, a call or a return (exitCost): unchecked while the call stack is
// shallow (returnDepth); deeper, paid for and checked by the exit check of
// the function that returns (frame.exit).
const (
	maxStraight  = 1000
	maxAfterCall = 256
)

// Section ids of the binary format.
const (
	secCustom   = 0
	secType     = 1
	secImport   = 2
	secFunction = 3
	secTable    = 4
	secMemory   = 5
	secGlobal   = 6
	secExport   = 7
	secStart    = 8
	secElem     = 9
	secCode     = 10
	secData     = 11
)

// sectionRank orders the non-custom sections as the binary format requires
// (the tag section, 13, sits between memory and global).
var sectionRank = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

// errMalformed is wrapped by every refusal of instrument.
var errMalformed = errors.New("malformed module")

// instrument returns module with the fuel and interrupt checks (see
// above). It decodes every instruction, because a check must never land
// inside one, and refuses instructions outside WebAssembly 2.0 (which is
// what the host's runtime compiles) and a start section (code that would
// run before the host could set the global). It also returns what
// compiling the module's two heaviest functions at once would hold, in
// bytes (funcCost.compileMemory), and the index of $refuel.
func instrument(module []byte) ([]byte, instrumented, error) {
	if !bytes.HasPrefix(module, []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, instrumented{}, fmt.Errorf("%w: invalid magic number or version: this is no WebAssembly binary module, which starts with the bytes \\0asm and version 1 (upload the compiled .wasm file)", errMalformed)
	}
	secs, err := splitSections(module)
	if err != nil {
		return nil, instrumented{}, err
	}
	var m moduleShape
	if err := m.read(secs); err != nil {
		return nil, instrumented{}, err
	}
	secs = m.withSections(secs)
	out := append(make([]byte, 0, len(module)+len(module)/8+64), module[:8]...)
	for _, s := range secs {
		body, err := m.rewrite(s)
		if err != nil {
			return nil, instrumented{}, err
		}
		out = append(out, s.id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out, instrumented{pairMemory: m.pairMemory, refuel: m.refuelFunc()}, nil
}

// instrumented is what instrument tells of the module it rewrote.
type instrumented struct {
	pairMemory uint64 // what compiling its two heaviest functions at once would hold
	refuel     uint32 // the function index of $refuel
}

// memoryMin returns the initial size in pages of the memory the module
// defines, if it defines one and is well-formed that far.
func memoryMin(module []byte) (uint32, bool) {
	if !bytes.HasPrefix(module, []byte("\x00asm\x01\x00\x00\x00")) {
		return 0, false
	}
	secs, err := splitSections(module)
	if err != nil {
		return 0, false
	}
	for _, s := range secs {
		if s.id == secMemory {
			r := &reader{b: s.body}
			if r.count() == 0 {
				return 0, false
			}
			r.byte() // flags
			pages := r.u32()
			return pages, r.err == nil
		}
	}
	return 0, false
}

type rawSection struct {
	id   byte
	body []byte
}

func splitSections(module []byte) ([]rawSection, error) {
	r := &reader{b: module, p: 8}
	var secs []rawSection
	for r.p < len(r.b) {
		id := r.byte()
		body := r.bytes(int(r.u32()))
		if r.err != nil {
			return nil, r.err
		}
		secs = append(secs, rawSection{id: id, body: body})
	}
	return secs, nil
}

// moduleShape is what instrument learns of a module before rewriting it:
// the counts that place its own type, function and globals after the
// module's, so that no existing index changes.
type moduleShape struct {
	imported map[byte]uint32 // imports by kind: 0 functions, 2 memories, 3 globals
	defined  map[byte]uint32 // entries of the type, function, memory and global sections
	types    []fnType        // each type's
	fns      []fnType        // of each function the module defines
	voidType int64           // index of a type [] -> [], or -1
	seen     map[byte]bool   // sections present
	tables   []byte          // the table section with its bounds (boundTables)
	// pairMemory is what compiling its two heaviest functions at once
	// would hold (instrumentCode), once the code section is rewritten.
	pairMemory uint64
}

// read checks the section order and counts what rewrite needs.
func (m *moduleShape) read(secs []rawSection) error {
	m.imported, m.defined, m.seen, m.voidType = map[byte]uint32{}, map[byte]uint32{}, map[byte]bool{}, -1
	last := 0
	for _, s := range secs {
		if s.id == secCustom {
			continue
		}
		rank, ok := sectionRank[s.id]
		if !ok || rank <= last {
			return fmt.Errorf("%w: section %d is unknown or out of order", errMalformed, s.id)
		}
		last, m.seen[s.id] = rank, true
		if err := m.readSection(s); err != nil {
			return err
		}
	}
	return nil
}

func (m *moduleShape) readSection(s rawSection) error {
	r := &reader{b: s.body}
	switch s.id {
	case secStart:
		return fmt.Errorf("%w: a start section is not supported: export _initialize (a reactor) or _start (a command) instead", errMalformed)
	case secImport:
		return m.readImports(r)
	case secType:
		return m.readTypes(r)
	case secFunction:
		return m.readFunctions(r)
	case secMemory, secGlobal:
		m.defined[s.id] = r.u32()
		switch {
		case r.err != nil:
		case s.id == secGlobal && m.defined[secGlobal] > maxGlobals:
			return fmt.Errorf("%w: the module defines %d globals; the venue takes at most %d", errMalformed, m.defined[secGlobal], maxGlobals)
		}
	case secTable:
		var err error
		m.tables, err = boundTables(s.body)
		return err
	case secExport:
		return readExports(r)
	case secElem, secData:
		if n := r.count(); n > maxSegments {
			return fmt.Errorf("%w: the module has %d %s segments; the venue takes at most %d", errMalformed, n,
				map[byte]string{secElem: "element", secData: "data"}[s.id], maxSegments)
		}
	}
	return r.err
}

// fnType is what instrumentFunc needs of a function's type: its
// parameters' count, and the block type of its results (for a block that
// leaves as the function returns), or 0 where a byte does not say it:
// several results, which a block names by a type of no parameters.
type fnType struct {
	params uint32
	block  byte
}

// readFunctions reads the type of each function the module defines.
func (m *moduleShape) readFunctions(r *reader) error {
	n := r.u32() // bounded here, then entry by entry by the bytes left
	if uint64(m.imported[0x00])+uint64(n) > maxFunctions {
		return fmt.Errorf("%w: the module has %d functions; the venue takes at most %d", errMalformed, n, maxFunctions)
	}
	m.defined[secFunction] = n
	m.fns = make([]fnType, 0, n)
	for range n {
		t := r.u32()
		if r.err == nil && t >= uint32(len(m.types)) {
			return fmt.Errorf("%w: a function has type %d, which does not exist", errMalformed, t)
		}
		if r.err != nil {
			return r.err
		}
		m.fns = append(m.fns, m.types[t])
	}
	return r.err
}

// readTypes counts the types and finds one of no parameters and results.
func (m *moduleShape) readTypes(r *reader) error {
	n := r.count()
	if n > maxTypes {
		return fmt.Errorf("%w: the module has %d function types; the venue takes at most %d", errMalformed, n, maxTypes)
	}
	for i := range n {
		if r.byte() != 0x60 {
			r.fail("type %d is not a function type", i)
		}
		params, results := r.bytes(int(r.count())), r.bytes(int(r.count()))
		if r.err != nil {
			return r.err
		}
		block := byte(0)
		switch len(results) {
		case 0:
			block = 0x40
		case 1:
			block = results[0]
		}
		m.types = append(m.types, fnType{params: uint32(len(params)), block: block})
		if len(params) == 0 && len(results) == 0 && m.voidType < 0 {
			m.voidType = int64(i)
		}
	}
	m.defined[secType] = n
	return r.err
}

// readImports counts the functions, memories and globals imported.
func (m *moduleShape) readImports(r *reader) error {
	for range r.count() {
		r.name()
		r.name()
		kind := r.byte()
		switch kind {
		case 0x00: // a function: its type
			r.u32()
		case 0x02: // a memory: its limits
			r.limits()
		case 0x01, 0x03:
			// The venue provides functions and a memory; a table or a global
			// imported could never be provided, and an imported table would
			// escape boundTables.
			return fmt.Errorf("%w: the module imports a %s; the venue provides only functions and a memory to import",
				errMalformed, map[byte]string{0x01: "table", 0x03: "global"}[kind])
		default:
			r.fail("unknown import kind %d", kind)
		}
		if r.err != nil {
			return r.err
		}
		m.imported[kind]++
	}
	return r.err
}

// readExports refuses a module that exports a name the host adds.
func readExports(r *reader) error {
	for range r.count() {
		name := r.name()
		r.byte()
		r.u32()
		if r.err == nil && (name == interruptExport || name == depthExport) {
			return fmt.Errorf("%w: the export name %s is reserved for the venue", errMalformed, name)
		}
	}
	return r.err
}

// withSections adds, empty and in their places, the sections rewrite must
// extend and the module lacks.
func (m *moduleShape) withSections(secs []rawSection) []rawSection {
	need := []byte{secType, secFunction, secGlobal, secExport, secCode}
	if m.imported[0x02]+m.defined[secMemory] == 0 {
		need = append(need, secMemory)
	}
	for _, id := range need {
		if m.seen[id] {
			continue
		}
		at := len(secs)
		for i, s := range secs {
			if s.id != secCustom && sectionRank[s.id] > sectionRank[id] {
				at = i
				break
			}
		}
		secs = append(secs[:at], append([]rawSection{{id: id, body: []byte{0}}}, secs[at:]...)...)
	}
	return secs
}

// Indices of what instrument adds: each after the module's own.
func (m *moduleShape) fuelGlobal() uint32      { return m.imported[0x03] + m.defined[secGlobal] }
func (m *moduleShape) interruptGlobal() uint32 { return m.fuelGlobal() + 1 }
func (m *moduleShape) depthGlobal() uint32     { return m.fuelGlobal() + 2 }
func (m *moduleShape) tmpGlobal() uint32       { return m.fuelGlobal() + 3 }
func (m *moduleShape) refuelFunc() uint32      { return m.imported[0x00] + m.defined[secFunction] }
func (m *moduleShape) refuelType() uint32 {
	if m.voidType >= 0 {
		return uint32(m.voidType)
	}
	return m.defined[secType]
}

// frames returns the frame of each function the module defines.
func (m *moduleShape) frames() []frame {
	fs := make([]frame, len(m.fns))
	for i, t := range m.fns {
		fs[i] = frame{params: t.params, depth: m.depthGlobal(), block: t.block}
	}
	return fs
}

// rewrite returns the section's body with instrument's additions.
func (m *moduleShape) rewrite(s rawSection) ([]byte, error) {
	switch s.id {
	case secType:
		if m.voidType >= 0 {
			return s.body, nil
		}
		return appendEntry(s.body, 0x60, 0x00, 0x00)
	case secFunction:
		return appendEntry(s.body, appendU32(nil, m.refuelType())...)
	case secMemory:
		if m.seen[secMemory] {
			return s.body, nil
		}
		return appendEntry(s.body, 0x00, 0x00) // limits: min 0, no max
	case secGlobal:
		fuel := append([]byte{0x7f, 0x01, 0x41}, appendS32(nil, fuelPerRefuel)...)
		body, err := appendEntry(s.body, append(fuel, 0x0b)...)
		if err != nil {
			return nil, err
		}
		if body, err = appendEntry(body, 0x7f, 0x01, 0x41, 0x00, 0x0b); err != nil { // interrupt: (mut i32) 0
			return nil, err
		}
		if body, err = appendEntry(body, 0x7f, 0x01, 0x41, 0x00, 0x0b); err != nil { // depth: (mut i32) 0
			return nil, err
		}
		return appendEntry(body, 0x7f, 0x01, 0x41, 0x00, 0x0b) // tmp: (mut i32) 0
	case secExport:
		body, err := appendEntry(s.body, exportGlobal(interruptExport, m.interruptGlobal())...)
		if err != nil {
			return nil, err
		}
		return appendEntry(body, exportGlobal(depthExport, m.depthGlobal())...)
	case secTable:
		return m.tables, nil
	case secCode:
		code, pair, err := instrumentCode(s.body, m.check(), m.bulkCheck(), codeLimits{globals: m.fuelGlobal(), funcs: m.refuelFunc()}, m.frames())
		if err != nil {
			return nil, err
		}
		m.pairMemory = pair
		refuel := m.refuelBody()
		return appendEntry(code, append(appendU32(nil, uint32(len(refuel))), refuel...)...)
	}
	return s.body, nil
}

// exportGlobal is an export entry of global i under name.
func exportGlobal(name string, i uint32) []byte {
	export := appendU32(nil, uint32(len(name)))
	export = append(append(export, name...), 0x03) // a global
	return appendU32(export, i)
}

// checkCode is the code of a check, with a 5-byte weight at weightAt
// that instrumentFunc fills in: the instructions of the region the check
// begins, up to the next check.
type checkCode struct {
	code     []byte
	weightAt int
	paysTo   int // the end of its payment: the code before its test
}

// check is the code placed at every function entry and loop head, and in
// straight code wherever a region grows long (instrumentFunc):
//
//	global.get $fuel  i32.const weight  i32.sub  global.set $fuel
//	global.get $fuel  i32.const 0  i32.lt_s  if  call $refuel  end
//
// The region is paid for before it runs; $refuel fills $fuel again.
func (m *moduleShape) check() checkCode {
	fuel := appendU32(nil, m.fuelGlobal())
	c := append(append([]byte{0x23}, fuel...), 0x41)
	at := len(c)
	c = append(append(putWeight(c, 1), 0x6b, 0x24), fuel...)
	paid := len(c)
	c = append(append(c, 0x23), fuel...)
	c = append(c, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10)
	c = append(appendU32(c, m.refuelFunc()), 0x0b)
	return checkCode{code: c, weightAt: at, paysTo: paid}
}

// payment is the check without its test: where a branch lands, it may do
// (label).
func (c checkCode) payment() []byte { return c.code[:c.paysTo] }

// putWeight appends w as a signed LEB128 of exactly 5 bytes, the most an
// i32.const takes, so that a weight can be written in later.
func putWeight(b []byte, w uint32) []byte {
	return append(b, byte(w)|0x80, byte(w>>7)|0x80, byte(w>>14)|0x80, byte(w>>21)|0x80, byte(w>>28)&0x07)
}

// matches reports whether b starts with the check, whatever its weight.
func (c checkCode) matches(b []byte) bool { return c.matchesTo(b, len(c.code)) }

// matchesPayment reports whether b starts with the check's payment.
func (c checkCode) matchesPayment(b []byte) bool { return c.matchesTo(b, c.paysTo) }

// matchesTo reports whether b starts with the check's code up to end,
// whatever its weight.
func (c checkCode) matchesTo(b []byte, end int) bool {
	return len(b) >= end && bytes.Equal(b[:c.weightAt], c.code[:c.weightAt]) &&
		bytes.Equal(b[c.weightAt+5:end], c.code[c.weightAt+5:end])
}

// bulkCost is what a bulk memory or table instruction takes from $fuel
// besides its size: one instruction's worth per 64 bytes (or entries) it
// touches, as the operand on top of the stack says, which may be the whole
// memory. At an eighth of a refill each, whatever their size, eight fills of
// a 64 MiB memory ran between exits to Go (some 50 ms for a collection to
// wait), of a 4 GiB memory seconds; sized, a fill that costs more than a
// refill reaches Go right before it runs, so at most one such runs between.
const bulkCost = 16

// bulkCheck is the code placed before every bulk instruction, whose last
// operand n is on top of the stack:
//
//	global.set $tmp  global.get $tmp
//	global.get $fuel  global.get $tmp  i32.const 6  i32.shr_u  i32.const bulkCost  i32.add  i32.sub
//	global.set $fuel  global.get $fuel  i32.const 0  i32.lt_s  if  call $refuel  end
func (m *moduleShape) bulkCheck() []byte {
	fuel, tmp := appendU32(nil, m.fuelGlobal()), appendU32(nil, m.tmpGlobal())
	c := append(append(append(append([]byte{0x24}, tmp...), 0x23), tmp...), 0x23)
	c = append(append(append(c, fuel...), 0x23), tmp...)
	c = append(appendS32(append(c, 0x41, 0x06, 0x76, 0x41), bulkCost), 0x6a, 0x6b, 0x24)
	c = append(append(append(c, fuel...), 0x23), fuel...)
	c = append(c, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10)
	return append(appendU32(c, m.refuelFunc()), 0x0b)
}

// boundTables returns the table section with maxima that keep all tables
// together within maxTableEntries, refusing tables whose minima already
// pass it: wazero allocates a table's references whole, and tables grown
// without bound would take the venue's memory (a memory limit covers
// linear memory only; an audit's 4.7 KB module of 256 full tables took
// 2.2 GB). The room to grow goes to the tables in order.
func boundTables(body []byte) ([]byte, error) {
	r := &reader{b: body}
	n := r.count()
	type table struct {
		ref         byte
		least, most uint32
	}
	tables := make([]table, 0, min(n, 16))
	room := uint32(maxTableEntries)
	for i := range n {
		t := table{ref: r.byte(), most: maxTableEntries}
		flags := r.byte()
		t.least = r.u32()
		if flags&1 != 0 {
			t.most = r.u32()
		}
		if r.err != nil {
			return nil, r.err
		}
		if t.least > room {
			return nil, fmt.Errorf("%w: the tables start with more than %d entries in all (table %d with %d); the venue takes at most that",
				errMalformed, maxTableEntries, i, t.least)
		}
		room -= t.least
		tables = append(tables, t)
	}
	out := appendU32(make([]byte, 0, len(body)+8), n)
	for _, t := range tables {
		most := t.most // below its minimum: left for wazero to refuse
		if t.most >= t.least {
			most = t.least + min(t.most-t.least, room)
			room -= most - t.least
		}
		out = appendU32(appendU32(append(out, t.ref, 0x01), t.least), most)
	}
	if r.err == nil && r.p != len(body) {
		return nil, fmt.Errorf("%w: bytes after the last table", errMalformed)
	}
	return out, r.err
}

// refuelBody is $refuel's code (no locals):
//
//	i32.const 0  memory.grow 0  drop
//	global.get $interrupt  if  unreachable  end
//	i32.const fuelPerRefuel  global.set $fuel  end
func (m *moduleShape) refuelBody() []byte {
	b := []byte{0x00, 0x41, 0x00, 0x40, 0x00, 0x1a, 0x23}
	b = append(appendU32(b, m.interruptGlobal()), 0x04, 0x40, 0x00, 0x0b, 0x41)
	b = append(appendS32(b, fuelPerRefuel), 0x24)
	return append(appendU32(b, m.fuelGlobal()), 0x0b)
}

// appendEntry returns a vector's encoding with one more entry.
func appendEntry(vec []byte, entry ...byte) ([]byte, error) {
	r := &reader{b: vec}
	n := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	out := appendU32(make([]byte, 0, len(vec)+len(entry)+5), n+1)
	return append(append(out, vec[r.p:]...), entry...), nil
}
