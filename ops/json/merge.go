package jsonops

import (
	"encoding/json"

	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

func merge(in json.RawMessage) (any, error) {
	var values any
	if err := decode("json:merge", in, map[string]*any{"values": &values}); err != nil {
		return nil, err
	}
	list, ok := values.([]any)
	if !ok {
		return nil, guest.Errorf("'values' must be an array of values to merge")
	}
	m := merger{}
	var out any
	for _, v := range list {
		out = m.merge(out, v)
	}
	return output{out}, nil
}

// Merge deep-merges b over a: when both are objects, members of b are
// merged into a's member of the same name, new ones appended; otherwise b
// replaces a. Neither argument is modified.
func Merge(a, b any) any {
	return merger{}.merge(a, b)
}

// merger merges in time linear in what it is given. Copying the result
// for every value merged into it would take time quadratic in their
// number, so it copies each object of its arguments at most once, the
// first time something is merged into it, and from then on changes its
// own copy. The map holds the copies it owns.
type merger map[*jsonv.Object]bool

func (m merger) merge(a, b any) any {
	ao, aok := a.(*jsonv.Object)
	bo, bok := b.(*jsonv.Object)
	if !aok || !bok {
		return b
	}
	if !m[ao] {
		ao = clone(ao)
		m[ao] = true
	}
	for _, k := range bo.Keys() {
		old, _ := ao.Get(k)
		v, _ := bo.Get(k)
		ao.Set(k, m.merge(old, v))
	}
	return ao
}

func clone(o *jsonv.Object) *jsonv.Object {
	out := jsonv.NewObject()
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}
