package wasm

import "fmt"

// instrumentCode rewrites the code section: each function body gets check
// after its locals (unless it starts with a loop, whose check comes at
// once) and after the block type of each of its loops.
func instrumentCode(body, check []byte) ([]byte, error) {
	r := &reader{b: body}
	n := r.count()
	out := appendU32(make([]byte, 0, len(body)+len(body)/16), n)
	for i := range n {
		size := r.u32()
		fn := r.bytes(int(size))
		if r.err != nil {
			return nil, r.err
		}
		code, err := instrumentFunc(fn, check)
		if err != nil {
			return nil, fmt.Errorf("function %d of the code section: %w", i, err)
		}
		out = appendU32(out, uint32(len(code)))
		out = append(out, code...)
	}
	if r.err == nil && r.p != len(body) {
		return nil, fmt.Errorf("%w: bytes after the last function body", errMalformed)
	}
	return out, r.err
}

// instrumentFunc rewrites one function body.
func instrumentFunc(fn, check []byte) ([]byte, error) {
	r := &reader{b: fn}
	for range r.count() { // local declarations: a count and a type each
		r.u32()
		r.byte()
	}
	if r.err != nil {
		return nil, r.err
	}
	out := append(make([]byte, 0, len(fn)+len(check)*4), fn[:r.p]...)
	if r.p >= len(fn) || fn[r.p] != 0x03 {
		out = append(out, check...)
	}
	copied := r.p
	for r.p < len(fn) {
		loop, err := r.instruction()
		if err != nil {
			return nil, err
		}
		if loop {
			out = append(append(out, fn[copied:r.p]...), check...)
			copied = r.p
		}
	}
	if len(fn) == 0 || fn[len(fn)-1] != 0x0b {
		return nil, fmt.Errorf("%w: a function body does not end with end", errMalformed)
	}
	return append(out, fn[copied:]...), nil
}

// instruction reads one instruction and reports whether it is a loop. Its
// immediates are read exactly as the binary format of WebAssembly 2.0 lays
// them out; an opcode outside it is refused, since after one the decoder
// could not know where the next instruction starts.
func (r *reader) instruction() (loop bool, err error) {
	at := r.p
	op := r.byte()
	switch {
	case op == 0x02 || op == 0x04: // block, if
		r.s33()
	case op == 0x03: // loop
		r.s33()
		loop = true
	case op == 0x0c || op == 0x0d || op == 0x10 || (op >= 0x20 && op <= 0x26) || op == 0xd2:
		r.u32() // br, br_if, call, local.*, global.*, table.get/set, ref.func
	case op == 0x0e: // br_table
		for range r.count() {
			r.u32()
		}
		r.u32() // the default
	case op == 0x11: // call_indirect: type, table
		r.u32()
		r.u32()
	case op == 0x1c: // select with types
		r.bytes(int(r.count()))
	case op >= 0x28 && op <= 0x3e: // loads and stores: align, offset
		r.u32()
		r.u32()
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
		r.prefixedFC()
	case op == 0xfd:
		r.prefixedSIMD()
	case op <= 0x01 || op == 0x05 || op == 0x0b || op == 0x0f || op == 0x1a || op == 0x1b ||
		op == 0xd1 || (op >= 0x45 && op <= 0xc4):
		// no immediates
	default:
		return false, fmt.Errorf("%w: instruction 0x%02x at byte %d is not WebAssembly 2.0", errMalformed, op, at)
	}
	return loop, r.err
}

// prefixedFC reads the immediates of the 0xfc instructions: saturating
// truncations, bulk memory and table operations.
func (r *reader) prefixedFC() {
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8, sub == 10, sub == 12, sub == 14: // memory.init, memory.copy, table.init, table.copy
		r.u32()
		r.u32()
	case sub == 9, sub == 11, sub == 13, sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
		r.u32()
	default:
		r.fail("0xfc instruction %d is not WebAssembly 2.0", sub)
	}
}

// prefixedSIMD reads the immediates of the 0xfd (vector) instructions.
func (r *reader) prefixedSIMD() {
	switch sub := r.u32(); {
	case sub <= 0x0b || sub == 0x5c || sub == 0x5d: // loads, store, load_zero: memarg
		r.u32()
		r.u32()
	case sub == 0x0c || sub == 0x0d: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 0x15 && sub <= 0x22: // extract_lane, replace_lane
		r.byte()
	case sub >= 0x54 && sub <= 0x5b: // load_lane, store_lane: memarg, lane
		r.u32()
		r.u32()
		r.byte()
	case sub <= 0xff:
		// no immediates (an unassigned opcode is refused by the compiler)
	default:
		r.fail("0xfd instruction %d is not WebAssembly 2.0", sub)
	}
}
