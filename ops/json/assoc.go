package jsonops

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

func assoc(in json.RawMessage) (any, error) {
	var target, path, value any
	err := decode("json:assoc", in, map[string]*any{"target": &target, "path": &path, "value": &value})
	if err != nil {
		return nil, err
	}
	segs, ok := segments(path)
	if !ok {
		return nil, guest.Errorf("'path' must be a string like \"a/b\" or an array of keys and indices")
	}
	if p, isString := path.(string); isString && slices.Contains(segs, "") {
		return nil, guest.Errorf("'path' %q has an empty segment: separate keys with one '/', with none at either end (an empty key can be given in the array form, [\"a\", \"\"])", clip(p))
	}
	// value ends up len(segs) levels down, inside the output's {"result": …}.
	if d := len(segs) + jsonv.Depth(value) + 1; d > jsonv.MaxDepth {
		return nil, guest.Errorf("the result would nest too deeply: %d levels, over the %d JSON allows", d, jsonv.MaxDepth)
	}
	out, err := Assoc(target, segs, value)
	if err != nil {
		return nil, err
	}
	return output{out}, nil
}

// segments splits a path: "a/b/0" ("" is no segment at all) or an array
// of strings and non-negative integers.
func segments(path any) ([]string, bool) {
	switch p := path.(type) {
	case string:
		if p == "" {
			return nil, true
		}
		return strings.Split(p, "/"), true
	case []any:
		segs := make([]string, len(p))
		for i, s := range p {
			k, ok := keyText(s)
			if !ok {
				return nil, false
			}
			segs[i] = k
		}
		return segs, true
	}
	return nil, false
}

// Assoc returns target with value set at the path segs, creating objects
// where the path runs into nothing (or null). A segment into an array is
// an index; the index just past its end appends. target is not modified.
// An empty path replaces the whole target.
func Assoc(target any, segs []string, value any) (any, error) {
	if len(segs) == 0 {
		return value, nil
	}
	switch t := target.(type) {
	case nil:
		return assocObject(jsonv.NewObject(), segs, value)
	case *jsonv.Object:
		return assocObject(t, segs, value)
	case []any:
		return assocArray(t, segs, value)
	}
	return nil, guest.Errorf("cannot set '%s' inside %s", segs[0], article(jsonv.Kind(target)))
}

func assocObject(o *jsonv.Object, segs []string, value any) (any, error) {
	old, _ := o.Get(segs[0])
	v, err := Assoc(old, segs[1:], value)
	if err != nil {
		return nil, err
	}
	out := jsonv.NewObject()
	for _, k := range o.Keys() {
		e, _ := o.Get(k)
		out.Set(k, e)
	}
	out.Set(segs[0], v)
	return out, nil
}

func assocArray(a []any, segs []string, value any) (any, error) {
	i, err := strconv.Atoi(segs[0])
	if err != nil || i < 0 || i > len(a) {
		return nil, guest.Errorf("cannot set '%s' in an array of %d elements: want an index from 0 to %d", segs[0], len(a), len(a))
	}
	var old any
	if i < len(a) {
		old = a[i]
	}
	v, err := Assoc(old, segs[1:], value)
	if err != nil {
		return nil, err
	}
	out := append(append([]any(nil), a[:i]...), v)
	if i < len(a) {
		out = append(out, a[i+1:]...)
	}
	return out, nil
}

func article(kind string) string {
	if strings.IndexByte("aeiou", kind[0]) >= 0 {
		return "an " + kind
	}
	return "a " + kind
}

// clip shortens a path quoted in an error to its first 100 bytes.
func clip(p string) string {
	if len(p) <= 100 {
		return p
	}
	return strings.ToValidUTF8(p[:100], "") + "…"
}
