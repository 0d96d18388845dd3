package wasm

import "fmt"

// reader decodes the WebAssembly binary format. Its first error sticks:
// every read after it returns zero, so a sequence of reads is checked once.
type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{errMalformed}, args...)...)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.p >= len(r.b) {
		r.fail("unexpected end at byte %d", r.p)
		return 0
	}
	r.p++
	return r.b[r.p-1]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.p {
		r.fail("a length of %d bytes runs past the end at byte %d", n, r.p)
		return nil
	}
	r.p += n
	return r.b[r.p-n : r.p]
}

// leb reads a LEB128 number of at most max bytes and returns its low 64
// bits; how it is signed does not matter for skipping it.
func (r *reader) leb(max int) uint64 {
	var v uint64
	for i := range max {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if i < 10 {
			v |= uint64(c&0x7f) << (7 * i)
		}
		if c&0x80 == 0 {
			return v
		}
	}
	r.fail("a number longer than %d bytes at byte %d", max, r.p)
	return 0
}

// u32 reads an unsigned 32-bit LEB128 number (indices, counts, sizes).
func (r *reader) u32() uint32 {
	v := r.leb(5)
	if v > 1<<32-1 {
		r.fail("a number over 32 bits at byte %d", r.p)
		return 0
	}
	return uint32(v)
}

// count reads the length of a vector whose elements take at least a byte
// each, so that no count can send a decoding loop past the input.
func (r *reader) count() uint32 {
	n := r.u32()
	if int64(n) > int64(len(r.b)-r.p) {
		r.fail("a count of %d at byte %d exceeds the bytes left", n, r.p)
		return 0
	}
	return n
}

// s33 reads a block type: a signed 33-bit number (a type index, or one
// byte for none or a value type).
func (r *reader) s33() { r.leb(5) }

// name reads a length-prefixed UTF-8 name.
func (r *reader) name() string { return string(r.bytes(int(r.u32()))) }

// limits reads a table's or memory's limits: flags, minimum, maximum if
// the flags say so.
func (r *reader) limits() {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
}

// appendU32 appends v as unsigned LEB128.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendS32 appends v as signed LEB128 (the immediate of i32.const).
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
