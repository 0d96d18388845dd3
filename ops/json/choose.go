package jsonops

import (
	"encoding/json"

	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

// json:select and json:cond choose one of several values: by key, or by the
// first truthy condition.

func selectOp(in json.RawMessage) (any, error) {
	var key, cases, def any
	err := decode("json:select", in, map[string]*any{"key": &key, "cases": &cases, "default": &def})
	if err != nil {
		return nil, err
	}
	table, ok := cases.(*jsonv.Object)
	if !ok {
		return nil, guest.Errorf("'cases' must be an object mapping keys to results")
	}
	if key == nil { // as the reference venue has it: no key, no case
		return output{def}, nil
	}
	k, ok := keyText(key)
	if !ok {
		return nil, guest.Errorf("'key' must be a string, number or boolean")
	}
	if v, found := table.Get(k); found {
		return output{v}, nil
	}
	return output{def}, nil
}

// keyText is the object key a scalar selects: a string as it is, a number
// or boolean as written in JSON.
func keyText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number, bool:
		return string(jsonv.Append(nil, v)), true
	}
	return "", false
}

func cond(in json.RawMessage) (any, error) {
	var cases, def any
	if err := decode("json:cond", in, map[string]*any{"cases": &cases, "default": &def}); err != nil {
		return nil, err
	}
	list, ok := cases.([]any)
	if !ok {
		return nil, guest.Errorf("'cases' must be an array of {if, then} objects")
	}
	for i, c := range list {
		o, ok := c.(*jsonv.Object)
		if !ok {
			return nil, guest.Errorf("'cases[%d]' must be an {if, then} object", i)
		}
		if holds(o) {
			then, _ := o.Get("then")
			return output{then}, nil
		}
	}
	return output{def}, nil
}

// holds reports whether a case's condition holds. A case written as the
// reference venue writes it, {when, then}, means what it means there: only
// false and null fail. With if, anything falsy fails (jsonv.Truthy).
func holds(c *jsonv.Object) bool {
	if test, ok := c.Get("if"); ok {
		return jsonv.Truthy(test)
	}
	test, ok := c.Get("when")
	return ok && test != nil && test != false
}
