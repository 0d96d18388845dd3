package runtime

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/gridvenue/venue/internal/jsonscan"
)

// flatSchema is an input schema of the shape most catalog entries have: an
// object whose properties say at most their type and bounds, some of them
// required. It answers "valid" for the inputs it can judge by a look at
// their top level, without decoding them, and "don't know" for everything
// else, valid or not, which then goes to the full validator, which also
// words the violation. It may only ever decline, never judge otherwise than
// the full validator: FuzzFlatSchema holds it to that. Decoding the input
// for the validator was most of the cost of checking it.
type flatSchema struct {
	props    map[string]flatProp
	required []string
	closed   bool // additionalProperties: false
}

type flatProp struct {
	kind   string // a JSON Schema type name, or "" for any
	min    int64  // the least integer the minimum admits, if hasMin
	max    int64  // the greatest integer the maximum admits, if hasMax
	hasMin bool
	hasMax bool
}

// Keywords that say nothing about validity, in a schema and a property.
var flatNotes = map[string]bool{"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// newFlatSchema returns doc's flatSchema, or nil if doc has any keyword
// beyond the few it knows.
func newFlatSchema(doc json.RawMessage) *flatSchema {
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil || string(top["type"]) != `"object"` {
		return nil
	}
	f := &flatSchema{props: map[string]flatProp{}}
	for k, v := range top {
		switch {
		case k == "type" || flatNotes[k]:
		case k == "$schema":
			if string(v) != `"https://json-schema.org/draft/2020-12/schema"` {
				return nil // other drafts read some keywords otherwise
			}
		case k == "additionalProperties":
			switch string(v) {
			case "true":
			case "false":
				f.closed = true
			default:
				return nil
			}
		case k == "required":
			if json.Unmarshal(v, &f.required) != nil {
				return nil
			}
		case k == "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				fp, ok := newFlatProp(p)
				if !ok {
					return nil
				}
				f.props[name] = fp
			}
		default:
			return nil
		}
	}
	return f
}

func newFlatProp(p map[string]json.RawMessage) (flatProp, bool) {
	var fp flatProp
	for k, v := range p {
		switch {
		case flatNotes[k]:
		case k == "type":
			if json.Unmarshal(v, &fp.kind) != nil {
				return fp, false
			}
			switch fp.kind {
			case "string", "integer", "number", "boolean", "object", "array", "null":
			default:
				return fp, false
			}
		case k == "minimum":
			if fp.min, fp.hasMin = intBound(v, true); !fp.hasMin {
				return fp, false
			}
		case k == "maximum":
			if fp.max, fp.hasMax = intBound(v, false); !fp.hasMax {
				return fp, false
			}
		default:
			return fp, false
		}
	}
	if (fp.hasMin || fp.hasMax) && fp.kind != "integer" && fp.kind != "number" {
		return fp, false // bounds on values that may not be numbers: leave them to the validator
	}
	return fp, true
}

// intBound reads a bound as the flat check uses it: it compares only
// integers with a bound, so it keeps the nearest integer on the bound's
// inner side (the ceiling of a minimum, the floor of a maximum), worked out
// exactly, as the validator compares.
func intBound(lit json.RawMessage, ceil bool) (int64, bool) {
	r, ok := new(big.Rat).SetString(string(lit))
	if !ok {
		return 0, false
	}
	q := new(big.Int).Quo(r.Num(), r.Denom()) // towards zero
	if !r.IsInt() && ceil && r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !r.IsInt() && !ceil && r.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q.Int64(), q.IsInt64()
}

// valid reports whether input, compact valid JSON, is surely valid; false
// means only that the full validator must decide. Keys are read only when
// plain (see jsonscan.Cursor.PlainString): encoding/json, which decodes
// the input for the validator, unescapes keys and replaces invalid UTF-8
// in them, so two keys unlike here may be one there.
func (f *flatSchema) valid(input []byte) bool {
	c := jsonscan.New(input)
	var seen []string // few keys: a slice beats a map
	ok := c.Object(func(key string) bool {
		if slices.Contains(seen, key) {
			return false // a repeated key: which one counts is the validator's business
		}
		seen = append(seen, key)
		start := c.Pos()
		if !c.Value() {
			return false
		}
		p, known := f.props[key]
		if !known && f.variant(key) {
			return false // the full check words the refusal
		}
		return (known || !f.closed) && (!known || p.admits(input[start:c.Pos()]))
	})
	if !ok {
		return false
	}
	for _, r := range f.required {
		if !slices.Contains(seen, r) {
			return false
		}
	}
	return true
}

// variant reports whether key, which is no property, is one but for case.
func (f *flatSchema) variant(key string) bool {
	for name := range f.props {
		if strings.EqualFold(key, name) {
			return true
		}
	}
	return false
}

// admits reports whether v, one compact JSON value, surely has the
// property's type and lies within its bounds.
func (p flatProp) admits(v []byte) bool {
	switch p.kind {
	case "":
		return true
	case "string":
		return v[0] == '"'
	case "object":
		return v[0] == '{'
	case "array":
		return v[0] == '['
	case "boolean":
		return v[0] == 't' || v[0] == 'f'
	case "null":
		return v[0] == 'n'
	}
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return false // not a number
	}
	plainInt := bytes.IndexAny(v, ".eE") < 0
	switch {
	case p.kind == "integer" && !plainInt:
		return false // 1.0 and 1e3 are the validator's to judge
	case !p.hasMin && !p.hasMax:
		return true
	case !plainInt:
		return false // bounds are compared exactly with integers only
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil && (!p.hasMin || n >= p.min) && (!p.hasMax || n <= p.max)
}
