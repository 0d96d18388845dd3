package venue_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestParseOperation(t *testing.T) {
	for _, tc := range []struct {
		name string
		path string
		meta string
		want venue.Operation // Asset and Meta are filled in by the test
	}{
		{"full catalog entry", "v/ops/core/read", `{
  "name": "Read Lattice Data",
  "description": "Reads a value at a lattice path.",
  "keywords": ["lattice", "read"],
  "operation": {
    "adapter": "core:read",
    "input": {"type":"object","properties":{"path":{"type":"string"}}},
    "output": {"type":"object"},
    "secretFields": ["apiKey", "token"],
    "toolName": "lattice_read"
  }
}`, venue.Operation{Path: "v/ops/core/read", Name: "core:read", Title: "Read Lattice Data",
			Description: "Reads a value at a lattice path.", Keywords: []string{"lattice", "read"}, Adapter: "core",
			Input:        json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
			Output:       json.RawMessage(`{"type":"object"}`),
			SecretFields: []string{"apiKey", "token"}, ToolName: "lattice_read"}},
		{"adapter without sub-operation", "o/my-wasm", `{"operation":{"adapter":"wasm"}}`,
			venue.Operation{Path: "o/my-wasm", Name: "wasm", Adapter: "wasm"}},
		{"kebab-case sub-operation", "v/ops/grid/job-result", `{"name":"Job result","operation":{"adapter":"grid:job-result"}}`,
			venue.Operation{Path: "v/ops/grid/job-result", Name: "grid:job-result", Title: "Job result", Adapter: "grid"}},
		{"adapter split at the first colon", "v/ops/mcp/x", `{"operation":{"adapter":"mcp:server:tool"}}`,
			venue.Operation{Path: "v/ops/mcp/x", Name: "mcp:server:tool", Adapter: "mcp"}},
		{"unknown fields are kept in Meta only", "a/" + hex64, `{"operation":{"adapter":"http:get","extra":1},"creator":"x"}`,
			venue.Operation{Path: "a/" + hex64, Name: "http:get", Adapter: "http"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, err := venue.ParseOperation(tc.path, []byte(tc.meta))
			if err != nil {
				t.Fatalf("ParseOperation: %v", err)
			}
			id, err := venue.AssetIDOf([]byte(tc.meta))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.Asset, want.Meta = id, json.RawMessage(tc.meta)
			if !reflect.DeepEqual(*op, want) {
				t.Errorf("ParseOperation\n got %+v\nwant %+v", *op, want)
			}
		})
	}
}

func TestOperation_SubOp(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   string
		want string
	}{
		{"adapter and op", "core:read", "read"},
		{"kebab-case op", "agent:cancel-task", "cancel-task"},
		{"no op", "wasm", ""},
		{"more colons stay in the op", "mcp:server:tool", "server:tool"},
		{"empty", "", ""},
		{"trailing colon", "core:", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &venue.Operation{Name: tc.op}
			if got := o.SubOp(); got != tc.want {
				t.Errorf("SubOp(%q) = %q, want %q", tc.op, got, tc.want)
			}
		})
	}
}

func TestParseOperation_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		meta    string
		wantMsg string
	}{
		{"plain asset", `{"name":"notes.txt","content":{"contentType":"text/plain"}}`, "Asset is not an operation: w/x (its metadata has no 'operation' object)"},
		{"null operation", `{"operation":null}`, "Asset is not an operation"},
		{"JSON null metadata", `null`, "Asset is not an operation"},
		{"empty operation object", `{"operation":{}}`, "Metadata must contain operation.adapter field (at w/x)"},
		{"empty adapter", `{"operation":{"adapter":""}}`, "Metadata must contain operation.adapter field"},
		{"operation is a string", `{"operation":"core:read"}`, "Operation metadata at w/x has the wrong type at operation: expected an object"},
		{"adapter is a number", `{"operation":{"adapter":7}}`, "Operation metadata at w/x has the wrong type at operation.adapter: expected a string"},
		{"keywords a string", `{"keywords":"a, b","operation":{"adapter":"wasm"}}`, "Operation metadata at w/x has the wrong type at keywords: expected an array"},
		{"array", `[{"operation":{"adapter":"core:read"}}]`, "is not a JSON object"},
		{"invalid JSON", `{"operation":`, "is not a JSON object"},
		{"empty", ``, "is not a JSON object"},
		// encoding/json skips the unknown field; the asset id cannot be
		// computed for a number no double holds.
		{"number out of range in another field", `{"operation":{"adapter":"core:read"},"n":1e400}`, "Invalid JSON: number 1e400 is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op, err := venue.ParseOperation("w/x", []byte(tc.meta))
			if err == nil {
				t.Fatalf("ParseOperation(%s) = %+v, want an error", tc.meta, op)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("message %q lacks %q", err, tc.wantMsg)
			}
		})
	}
}
