package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// guardedMeta is an operation whose token is secret-marked and patterned.
const guardedMeta = `{"name":"Guarded echo","operation":{"adapter":"test:echo","secretFields":["token"],
 "input":{"type":"object","properties":{
  "token":{"type":"string","pattern":"^tok-","maxLength":4000},
  "count":{"type":"integer","maximum":600000,"minimum":2.5},
  "tags":{"type":"array","maxItems":1000}}}}}`

func TestEngine_SchemaViolationsNeverEchoValues(t *testing.T) {
	h := mustEngine(t)
	id, err := h.RegisterAsset(h.alice, []byte(guardedMeta))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "hunter2-very-secret-value"
	many := strings.Repeat(`1,`, 1000) + `1`
	for _, tc := range []struct{ name, input, want string }{
		{"a secret breaking its pattern", `{"token": "` + secret + `"}`, "input.token: does not match pattern '^tok-'"},
		{"a huge number is written plainly", `{"count": 1e12}`, "input.count: maximum: got 1000000000000, want 600000"},
		{"a fraction is written plainly", `{"count": 1}`, "input.count: minimum: got 1, want 2.5"},
		{"counts have no digit grouping", `{"tags": [` + many + `]}`, "input.tags: maxItems: got 1001, want 1000"},
		{"lengths have no digit grouping", `{"token": "tok-` + strings.Repeat("y", 4000) + `"}`, "input.token: maxLength: got 4004, want 4000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: id.String(), Input: json.RawMessage(tc.input)})
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "yyyy") {
				t.Fatalf("error %q echoes the value", err)
			}
		})
	}
}

// TestCompileSchema_Faults: a schema that breaks the metaschema is refused
// with the keyword at fault and what is wrong with it, not the library's
// tree of allOf and anyOf under a URL only the venue knows.
func TestCompileSchema_Faults(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"required not a list", `{"type": "object", "required": "a"}`, "schema of a/x does not compile: schema.required: got string, want array"},
		{"an unknown type", `{"type": "objekt"}`, "schema.type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'"},
		{"a bound below zero", `{"properties": {"a": {"minLength": -1}}}`, "schema.properties.a.minLength: minimum: got -1, want 0"},
		{"a reference to nothing", `{"$ref": "#/nope"}`, `schema of a/x does not compile: json-pointer in "#/nope" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.CompileSchema("a/x", json.RawMessage(tc.doc))
			if venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "venue:///") {
				t.Fatalf("error %v, want it to hold %q", err, tc.want)
			}
		})
	}
}
