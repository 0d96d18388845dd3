package schema

import (
	"encoding/json"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

func init() {
	guest.Register("schema:infer", inferOp)
	guest.Register("schema:validate", validateOp)
}

func inferOp(in json.RawMessage) (any, error) {
	var p struct {
		Value json.RawMessage `json:"value"`
	}
	if err := input.Decode("schema:infer", in, &p); err != nil {
		return nil, err
	}
	if !input.Present(p.Value) {
		return nil, input.Required("value")
	}
	v, err := jsonv.Parse(p.Value)
	if err != nil {
		return nil, input.Invalid("value", err)
	}
	schema := Infer(v)
	// A schema nests deeper than its example (an array's items, an
	// object's properties add a level each), and JSON's depth is bounded.
	if d := jsonv.Depth(schema) + 1; d > jsonv.MaxDepth {
		return nil, guest.Errorf("'value' nests too deeply: its schema would nest %d levels deep, over the %d JSON allows", d, jsonv.MaxDepth)
	}
	return map[string]any{"schema": schema}, nil
}

// Infer returns a JSON Schema that the example v satisfies: its type, an
// object's properties (all of them required), an array's items. The
// elements of an array are merged: objects into one schema whose
// properties are all those seen and whose required ones are those every
// element has, integers with numbers into number, and elements of
// different types into anyOf.
func Infer(v any) *jsonv.Object {
	return union{}.add(v).schema()
}

// union is what the values seen at one place look like: at most one shape
// per JSON type, in the order first seen.
type union []*shape

// shape is the merged form of the values of one JSON type.
type shape struct {
	kind  string // a JSON Schema type name
	count int    // how many values were merged

	keys  []string         // object: properties, in the order first seen
	props map[string]union // object: the values of each property
	seen  map[string]int   // object: how many of the values had it

	items union // array: all elements of all the values
}

// add merges v into u.
func (u union) add(v any) union {
	kind := jsonv.Kind(v)
	s := u.find(kind)
	if s == nil {
		s = &shape{kind: kind}
		if kind == "object" {
			s.props, s.seen = map[string]union{}, map[string]int{}
		}
		u = append(u, s)
	} else if kind == "number" {
		s.kind = "number" // an integer shape that met a fraction
	}
	s.merge(v)
	return u
}

// find returns the shape kind merges into; integers and numbers share one.
func (u union) find(kind string) *shape {
	for _, s := range u {
		if s.kind == kind || isNumeric(s.kind) && isNumeric(kind) {
			return s
		}
	}
	return nil
}

func isNumeric(kind string) bool { return kind == "integer" || kind == "number" }

func (s *shape) merge(v any) {
	s.count++
	switch v := v.(type) {
	case *jsonv.Object:
		for _, k := range v.Keys() {
			if _, ok := s.props[k]; !ok {
				s.keys = append(s.keys, k)
			}
			e, _ := v.Get(k)
			s.props[k] = s.props[k].add(e)
			s.seen[k]++
		}
	case []any:
		for _, e := range v {
			s.items = s.items.add(e)
		}
	}
}

// schema writes u: its one shape, anyOf its shapes, or {} for nothing.
func (u union) schema() *jsonv.Object {
	if len(u) == 1 {
		return u[0].schema()
	}
	out := jsonv.NewObject()
	if len(u) > 1 {
		alts := make([]any, len(u))
		for i, s := range u {
			alts[i] = s.schema()
		}
		out.Set("anyOf", alts)
	}
	return out
}

func (s *shape) schema() *jsonv.Object {
	out := jsonv.NewObject()
	out.Set("type", s.kind)
	switch s.kind {
	case "object":
		props, required := jsonv.NewObject(), []any{}
		for _, k := range s.keys {
			props.Set(k, s.props[k].schema())
			if s.seen[k] == s.count {
				required = append(required, k)
			}
		}
		out.Set("properties", props)
		if len(required) > 0 {
			out.Set("required", required)
		}
	case "array":
		if len(s.items) > 0 {
			out.Set("items", s.items.schema())
		}
	}
	return out
}
