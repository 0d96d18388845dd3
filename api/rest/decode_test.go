package rest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestDecodeInvoke(t *testing.T) {
	for _, tc := range []struct{ name, body, op, want string }{
		{"minimal", `{"operation": "v/ops/x/y"}`, "v/ops/x/y", ""},
		{"everything", `{"operation": "o/p", "input": {"a": 1}, "wait": 50, "ucans": ["t"], "private": true}`, "o/p", ""},
		{"leading space", "  \n{\"operation\": \"a\"}", "a", ""},
		{"empty", ``, "", "The request body is empty: send {\"operation\""},
		{"not JSON", `{"operation": `, "", "Request body is not valid JSON"},
		{"not an object", `[1]`, "", "body: expected object"},
		{"a string", `"x"`, "", "body: expected object"},
		{"trailing data", `{"operation": "a"} {}`, "", "unexpected data after the object"},
		{"missing operation", `{"input": {}}`, "", "Invoke request requires an 'operation' parameter as a String"},
		{"empty operation", `{"operation": ""}`, "", "body.operation: expected length >= 1"},
		{"operation not a string", `{"operation": 5}`, "", "Invoke request requires an 'operation' parameter as a String"},
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

func TestQuickInvoke(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		quick      bool // the quick path decodes it (else it leaves it to encoding/json)
	}{
		{"minimal", `{"operation":"v/ops/x/y"}`, true},
		{"everything", ` {"operation": "o/p", "input": {"a": [1, -2.5e3, "x\"y\u00e9", true, null, {}]}, "wait": 50, "ucans": ["t", "u"], "private": false} `, true},
		{"wait true", `{"operation":"a","wait":true}`, true},
		{"wait a string", `{"operation":"a","wait":"100"}`, true},
		{"input null", `{"operation":"a","input":null}`, true},
		{"escaped operation", `{"operation":"v\/ops"}`, false},
		{"non-ASCII operation", `{"operation":"é"}`, false},
		{"key in another case", `{"Operation":"a"}`, false},
		{"repeated key", `{"operation":"a","operation":"b"}`, false},
		{"wait null", `{"operation":"a","wait":null}`, false},
		{"wait too large", `{"operation":"a","wait":1e400}`, false},
		{"ucans null", `{"operation":"a","ucans":null}`, false},
		{"deep input", `{"operation":"a","input":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false},
		{"leading zero", `{"operation":"a","input":01}`, false},
		{"bad escape", `{"operation":"a","input":"\x"}`, false},
		{"control character", "{\"operation\":\"a\",\"input\":\"\x01\"}", false},
		{"trailing data", `{"operation":"a"} {}`, false},
		{"missing operation", `{"input":{}}`, false},
		{"empty object", `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quick, ok := quickInvoke([]byte(tc.body))
			if ok != tc.quick {
				t.Fatalf("quick path took it: %v, want %v", ok, tc.quick)
			}
			if ok {
				sameAsSlow(t, []byte(tc.body), quick)
			}
		})
	}
}

// FuzzQuickInvoke holds the quick path to encoding/json's answers: what it
// decodes, the slow path decodes the same, and without error.
func FuzzQuickInvoke(f *testing.F) {
	for _, s := range []string{`{"operation":"a","input":{"x":[1,2.5e-3,"\u00e9"]},"wait":true,"ucans":["u"],"private":true}`,
		`{"operation":"a","wait":"7"}`, `{"operation":"a","input":null}`, `{"operation":"a","wait":-0}`, ` {"operation" : "b" , "input" : [ ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if quick, ok := quickInvoke(b); ok {
			sameAsSlow(t, b, quick)
		}
	})
}

func sameAsSlow(t *testing.T, b []byte, quick invocation) {
	t.Helper()
	slow, err := decodeInvokeSlow(b)
	if err != nil {
		t.Fatalf("quick path accepted %q, which encoding/json refuses: %v", b, err)
	}
	if !reflect.DeepEqual(quick, slow) {
		t.Fatalf("for %q the quick path gives %#v, encoding/json %#v", b, quick, slow)
	}
}
