package rest

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestDecodeInvoke(t *testing.T) {
	for _, tc := range []struct{ name, body, op, want string }{
		{"minimal", `{"operation": "v/ops/x/y"}`, "v/ops/x/y", ""},
		{"everything", `{"operation": "o/p", "input": {"a": 1}, "wait": 50, "ucans": ["t"], "private": true}`, "o/p", ""},
		{"leading space", "  \n{\"operation\": \"a\"}", "a", ""},
		{"empty", ``, "", "request body is required"},
		{"not JSON", `{"operation": `, "", "Request body is not valid JSON"},
		{"not an object", `[1]`, "", "body: expected object"},
		{"a string", `"x"`, "", "body: expected object"},
		{"trailing data", `{"operation": "a"} {}`, "", "unexpected data after the object"},
		{"missing operation", `{"input": {}}`, "", "expected required property operation"},
		{"empty operation", `{"operation": ""}`, "", "body.operation: expected length >= 1"},
		{"operation not a string", `{"operation": 5}`, "", "body.operation: expected string"},
		{"ucans not strings", `{"operation": "a", "ucans": [1]}`, "", "body.ucans"},
		{"unknown field", `{"operation": "a", "inputs": {}}`, "", "body.inputs: unexpected property"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeInvoke([]byte(tc.body))
			if tc.want == "" {
				if err != nil || got.Operation != tc.op {
					t.Fatalf("got %+v %v", got, err)
				}
				return
			}
			if venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func FuzzDecodeInvoke(f *testing.F) {
	for _, s := range []string{`{"operation":"a","input":{"x":[1,2]},"wait":true}`, `{}`, `[`, `{"operation":1}`, `{"a":1}`, ` {"operation":"x"} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeInvoke(b)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("code %s for %q", venue.ErrorCode(err), b)
			}
			if strings.Contains(err.Error(), "Go value") {
				t.Fatalf("message names a Go type: %v", err)
			}
			return
		}
		if got.Operation == "" || !json.Valid(b) {
			t.Fatalf("accepted %q as %+v", b, got)
		}
		if got.Input != nil && !json.Valid(got.Input) {
			t.Fatalf("input %q is not JSON", got.Input)
		}
	})
}
