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
	var out any
	for _, v := range list {
		out = Merge(out, v)
	}
	return output{out}, nil
}

// Merge deep-merges b over a: when both are objects, members of b are
// merged into a's member of the same name, new ones appended; otherwise b
// replaces a. Neither argument is modified.
func Merge(a, b any) any {
	ao, aok := a.(*jsonv.Object)
	bo, bok := b.(*jsonv.Object)
	if !aok || !bok {
		return b
	}
	out := jsonv.NewObject()
	for _, k := range ao.Keys() {
		v, _ := ao.Get(k)
		out.Set(k, v)
	}
	for _, k := range bo.Keys() {
		old, _ := out.Get(k)
		v, _ := bo.Get(k)
		out.Set(k, Merge(old, v))
	}
	return out
}
