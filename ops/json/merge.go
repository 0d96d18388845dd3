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
	var out any = m.owned(jsonv.NewObject())
	for _, v := range list {
		out = m.merge(out, v)
	}
	return output{m.prune(out)}, nil
}

// Merge applies b to a as a JSON Merge Patch (RFC 7396), as the reference
// venue's json:merge does: when b is an object its members are merged into
// a's (a taken as {} when it is not an object), a null member deleting the
// one of that name, new ones appended in order; otherwise b replaces a.
// Neither argument is modified.
func Merge(a, b any) any {
	m := merger{}
	return m.prune(m.merge(a, b))
}

// merger merges in time linear in what it is given. Copying the result
// for every value merged into it would take time quadratic in their
// number, so it copies each object of its arguments at most once, the
// first time something is merged into it, and from then on changes its
// own copy. The map holds the copies it owns. A deleted member stays as a
// tombstone until prune, since taking it out of an object's order at once
// would cost time in the object's size for every deletion.
type merger map[*jsonv.Object]bool

// tombstone marks a member a null deleted.
type tombstone struct{}

func (m merger) owned(o *jsonv.Object) *jsonv.Object {
	m[o] = true
	return o
}

func (m merger) merge(a, b any) any {
	bo, ok := b.(*jsonv.Object)
	if !ok {
		return b
	}
	ao, ok := a.(*jsonv.Object)
	switch {
	case !ok:
		ao = m.owned(jsonv.NewObject())
	case !m[ao]:
		ao = m.owned(clone(ao))
	}
	for _, k := range bo.Keys() {
		v, _ := bo.Get(k)
		if v == nil {
			if _, had := ao.Get(k); had {
				ao.Set(k, tombstone{})
			}
			continue
		}
		old, _ := ao.Get(k)
		ao.Set(k, m.merge(old, v))
	}
	return ao
}

// prune drops the tombstones from the objects the merger owns, the only
// ones that can hold any.
func (m merger) prune(v any) any {
	o, ok := v.(*jsonv.Object)
	if !ok || !m[o] {
		return v
	}
	out := jsonv.NewObject()
	for _, k := range o.Keys() {
		if e, _ := o.Get(k); e != (tombstone{}) {
			out.Set(k, m.prune(e))
		}
	}
	return out
}

func clone(o *jsonv.Object) *jsonv.Object {
	out := jsonv.NewObject()
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		out.Set(k, v)
	}
	return out
}
