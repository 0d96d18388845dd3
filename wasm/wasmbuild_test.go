package wasm

// A few lines of wasm binary encoding, for modules too small or too broken
// to be worth a compiler: no ABI, a foreign import, a reactor that lies
// about its pointers.

type wimport struct {
	mod, name       string
	params, results []byte
}

type wfunc struct {
	export          string // "" keeps it private
	params, results []byte
	body            []byte // instructions, without the final end
}

const (
	tI32 = 0x7f
	tI64 = 0x7e
)

// buildModule encodes a module of imports and funcs (function indices:
// imports first) with memPages of exported memory (none if negative).
func buildModule(imports []wimport, funcs []wfunc, memPages int) []byte {
	var types, imps, fnIdx, exps, code []byte
	ntypes, nexps := 0, 0
	for _, im := range imports {
		types = append(types, funcType(im.params, im.results)...)
		imps = append(imps, str(im.mod)...)
		imps = append(imps, str(im.name)...)
		imps = append(imps, 0x00)
		imps = append(imps, uleb(uint64(ntypes))...)
		ntypes++
	}
	for i, f := range funcs {
		types = append(types, funcType(f.params, f.results)...)
		fnIdx = append(fnIdx, uleb(uint64(ntypes))...)
		ntypes++
		body := append([]byte{0x00}, f.body...) // no locals
		body = append(body, 0x0b)
		code = append(code, uleb(uint64(len(body)))...)
		code = append(code, body...)
		if f.export != "" {
			exps = append(exps, str(f.export)...)
			exps = append(exps, 0x00)
			exps = append(exps, uleb(uint64(len(imports)+i))...)
			nexps++
		}
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	out = section(out, 1, ntypes, types)
	out = section(out, 2, len(imports), imps)
	out = section(out, 3, len(funcs), fnIdx)
	if memPages >= 0 {
		out = section(out, 5, 1, append([]byte{0x00}, uleb(uint64(memPages))...))
		exps = append(exps, str("memory")...)
		exps = append(exps, 0x02, 0x00)
		nexps++
	}
	out = section(out, 7, nexps, exps)
	return section(out, 10, len(funcs), code)
}

func section(out []byte, id byte, n int, content []byte) []byte {
	if n == 0 {
		return out
	}
	body := append(uleb(uint64(n)), content...)
	out = append(out, id)
	out = append(out, uleb(uint64(len(body)))...)
	return append(out, body...)
}

func funcType(params, results []byte) []byte {
	b := append([]byte{0x60}, uleb(uint64(len(params)))...)
	b = append(b, params...)
	b = append(b, uleb(uint64(len(results)))...)
	return append(b, results...)
}

func str(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			c |= 0x80
		}
		b = append(b, c)
		if v == 0 {
			return b
		}
	}
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		done := v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0
		if !done {
			c |= 0x80
		}
		b = append(b, c)
		if done {
			return b
		}
	}
}

// i32Const and i64Const are function bodies returning a constant.
func i32Const(v int32) []byte { return append([]byte{0x41}, sleb(int64(v))...) }
func i64Const(v int64) []byte { return append([]byte{0x42}, sleb(v)...) }

// fakeReactor is a reactor whose venue_alloc and venue_run return the
// given constants, to see what the host makes of a lying guest.
func fakeReactor(alloc int32, run int64) []byte {
	return buildModule(nil, []wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(alloc)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: i64Const(run)},
	}, 1)
}
