package runtime

import (
	"bytes"
	"encoding/json"
	"testing"
)

// flatCases are schemas with and without a flat form; FuzzFlatSchema
// checks every input against each.
var flatCases = []struct {
	name, schema string
	flat         bool
}{
	{"core:read's", `{"type":"object","properties":{"path":{"type":"string","description":"d"},"maxSize":{"type":"integer","minimum":1}},"required":["path"]}`, true},
	{"closed, every type", `{"type":"object","additionalProperties":false,"properties":{"s":{"type":"string"},"i":{"type":"integer","maximum":10},
		"n":{"type":"number","minimum":-1.5,"maximum":2.5},"b":{"type":"boolean"},"o":{"type":"object"},"a":{"type":"array"},"z":{"type":"null"},"any":{}}}`, true},
	{"draft 2020-12 named", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["a","b"]}`, true},
	{"draft 7", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false},
	{"a pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"^a"}}}`, false},
	{"a type list", `{"type":"object","properties":{"s":{"type":["string","null"]}}}`, false},
	{"bounds on any value", `{"type":"object","properties":{"x":{"minimum":1}}}`, false},
	{"nested properties", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`, false},
	{"not an object schema", `{"type":"array"}`, false},
	{"additionalProperties a schema", `{"type":"object","additionalProperties":{"type":"string"}}`, false},
}

func TestFlatSchema(t *testing.T) {
	for _, tc := range flatCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := newFlatSchema(json.RawMessage(tc.schema)) != nil; got != tc.flat {
				t.Fatalf("flat: %v, want %v", got, tc.flat)
			}
		})
	}
	read := newFlatSchema(json.RawMessage(flatCases[0].schema))
	closed := newFlatSchema(json.RawMessage(flatCases[1].schema))
	for _, tc := range []struct {
		name  string
		f     *flatSchema
		input string
		valid bool // the flat check passes it (false: the validator decides)
	}{
		{"the usual", read, `{"path":"v/info/did"}`, true},
		{"with a bound met", read, `{"path":"w/x","maxSize":1}`, true},
		{"a bound broken", read, `{"path":"w/x","maxSize":0}`, false},
		{"an integer written as a decimal", read, `{"path":"w/x","maxSize":1.0}`, false},
		{"a required field missing", read, `{"maxSize":5}`, false},
		{"a wrong type", read, `{"path":5}`, false},
		{"an unknown field of an open schema", read, `{"path":"a","other":{"x":[1,"}"]}}`, true},
		{"a repeated key", read, `{"path":"a","path":"b"}`, false},
		{"an escaped key", read, `{"pat\u0068":"a"}`, false},
		{"a key with invalid UTF-8, one with U+FFFD to the validator", newFlatSchema(json.RawMessage(`{"type":"object","properties":{"a\ufffd":{"type":"string"}}}`)), "{\"a\xff\":1}", false},
		{"not an object", read, `["path"]`, false},
		{"every type", closed, `{"s":"x\"y","i":10,"n":2,"b":false,"o":{"a":[{}]},"a":[[],{}],"z":null,"any":[1]}`, true},
		{"a decimal within bounds", closed, `{"n":2.4}`, false},
		{"an integer within decimal bounds", closed, `{"n":-1}`, true},
		{"an integer past a decimal bound", closed, `{"n":3}`, false},
		{"an integer past the maximum", closed, `{"i":11}`, false},
		{"an integer too large to read", closed, `{"i":-99999999999999999999}`, false},
		{"an unknown field of a closed schema", closed, `{"x":1}`, false},
		{"empty", closed, `{}`, true},
		{"a bound a hair above an integer", newFlatSchema(json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer","minimum":1.00000000000000001}}}`)), `{"x":1}`, false},
		{"the integer past that bound", newFlatSchema(json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer","minimum":1.00000000000000001}}}`)), `{"x":2}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.valid([]byte(tc.input)); got != tc.valid {
				t.Fatalf("valid: %v, want %v", got, tc.valid)
			}
		})
	}
}

// FuzzFlatSchema holds the flat check to the validator: whatever it passes,
// the validator passes too.
func FuzzFlatSchema(f *testing.F) {
	for _, s := range []string{`{"path":"v/info/did"}`, `{"path":"a","maxSize":3}`, `{"s":"x","i":-3,"n":0.5,"b":true,"o":{},"a":[],"z":null}`,
		`{"a":1,"b":"2"}`, `{"path":"a\\"b","x":[{"}":"]"}]}`} {
		f.Add([]byte(s))
	}
	type pair struct {
		flat *flatSchema
		full *compiledSchema
	}
	var schemas []pair
	for _, tc := range flatCases {
		if !tc.flat {
			continue
		}
		full, err := CompileSchema(tc.name, json.RawMessage(tc.schema))
		if err != nil {
			f.Fatal(err)
		}
		full.flat, full.objectOnly = nil, false
		schemas = append(schemas, pair{newFlatSchema(json.RawMessage(tc.schema)), full})
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf bytes.Buffer
		if json.Compact(&buf, b) != nil {
			return
		}
		for _, s := range schemas {
			if s.flat.valid(buf.Bytes()) {
				if err := s.full.validate(buf.Bytes()); err != nil {
					t.Fatalf("the flat check passed %s, which the validator refuses: %v", buf.Bytes(), err)
				}
			}
		}
	})
}
