package ops

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// A reader of the little of the WebAssembly binary format TestModule_ABI
// needs (the type, import, function and export sections), so that this
// package's tests need no Wasm runtime.

type wasmModule struct {
	exports map[string]string // name → "memory" or a function signature "(i32) -> (i64)"
	imports []string          // "module.name" of each imported function
}

// Section ids and kinds of the binary format.
const (
	secType     = 1
	secImport   = 2
	secFunction = 3
	secExport   = 7
	kindFunc    = 0
	kindTable   = 1
	kindMemory  = 2
	kindGlobal  = 3
)

type wasmReader struct {
	b   []byte
	err error
}

func (r *wasmReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wasmReader) u32() uint32 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > 1<<32-1 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return uint32(v)
}

func (r *wasmReader) bytes(n uint32) []byte {
	if uint64(n) > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *wasmReader) name() string { return string(r.bytes(r.u32())) }

func (r *wasmReader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated or malformed module")
	}
	r.b = nil
}

var valueTypes = map[byte]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64"}

// parseModule reads a module's function signatures, imports and exports.
func parseModule(b []byte) (*wasmModule, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module")
	}
	r := &wasmReader{b: b[8:]}
	m := &wasmModule{exports: map[string]string{}}
	var types, funcs []string // signatures by type index; by function index
	for len(r.b) > 0 && r.err == nil {
		id := r.byte()
		sec := &wasmReader{b: r.bytes(r.u32())}
		switch id {
		case secType:
			types = sec.types()
		case secImport:
			funcs = append(funcs, sec.imports(m, types)...)
		case secFunction:
			for n := sec.u32(); n > 0 && sec.err == nil; n-- {
				funcs = append(funcs, sig(types, sec.u32()))
			}
		case secExport:
			sec.exports(m, funcs)
		}
		if r.err == nil {
			r.err = sec.err
		}
	}
	return m, r.err
}

func (r *wasmReader) types() []string {
	var out []string
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		if r.byte() != 0x60 {
			r.fail()
		}
		params, results := r.valueTypes(), r.valueTypes()
		out = append(out, "("+params+") -> ("+results+")")
	}
	return out
}

func (r *wasmReader) valueTypes() string {
	var names []string
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		names = append(names, valueTypes[r.byte()])
	}
	return strings.Join(names, ", ")
}

// imports records imported functions and returns their signatures, which
// come first in the function index space.
func (r *wasmReader) imports(m *wasmModule, types []string) []string {
	var funcs []string
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		mod, name := r.name(), r.name()
		switch r.byte() {
		case kindFunc:
			m.imports = append(m.imports, mod+"."+name)
			funcs = append(funcs, sig(types, r.u32()))
		case kindTable:
			r.byte()
			r.limits()
		case kindMemory:
			r.limits()
		case kindGlobal:
			r.byte()
			r.byte()
		default:
			r.fail()
		}
	}
	return funcs
}

func (r *wasmReader) limits() {
	hasMax := r.byte()&1 == 1
	r.u32()
	if hasMax {
		r.u32()
	}
}

func (r *wasmReader) exports(m *wasmModule, funcs []string) {
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		name, kind, index := r.name(), r.byte(), r.u32()
		switch kind {
		case kindFunc:
			if int(index) < len(funcs) {
				m.exports[name] = funcs[index]
			}
		case kindMemory:
			m.exports[name] = "memory"
		}
	}
}

func sig(types []string, i uint32) string {
	if int(i) >= len(types) {
		return fmt.Sprintf("type#%d", i)
	}
	return types[i]
}
