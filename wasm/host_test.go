package wasm

import (
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// TestHost_Run drives the real engine through each ABI and guest language.
func TestHost_Run(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor", "gocommand", "creactor", "ccommand")
	const add = `{"a":40,"b":2,"name":"x"}`
	for _, tc := range []struct {
		name, op, input string
		want            string // the output, or with wantErr the error
		wantErr         bool
	}{
		{"go reactor adds", "v/test/wasm/goreactor", add, `{"sum":42,"greeting":"hello x","op":"wasm:goreactor"}`, false},
		{"c reactor adds", "v/test/wasm/creactor", add, `{"sum":42,"greeting":"hello x","op":"wasm:creactor"}`, false},
		{"builtin gets the op name", "v/test/tb/add", add, `{"sum":42,"greeting":"hello x","op":"tb:add"}`, false},
		{"go command adds", "v/test/wasm/gocommand", add, `{"greeting":"hello x","sum":42}`, false},
		{"c command adds", "v/test/wasm/ccommand", add, `{"sum":42}`, false},
		{"go reactor reports an error", "v/test/wasm/goreactor", `{"do":"fail","text":"no such widget"}`, "no such widget", true},
		{"c reactor reports an error", "v/test/wasm/creactor", `{"do":"fail"}`, "the C guest refuses", true},
		{"go command exits non-zero", "v/test/wasm/gocommand", `{"do":"fail","text":"widget jammed"}`, "widget jammed", true},
		{"c command exit message is trimmed", "v/test/wasm/ccommand", `{"do":"fail"}`, "the C command refuses", true},
		{"command output must be JSON", "v/test/wasm/gocommand", `{"do":"notjson"}`, `Operation returned output that is not JSON (17 bytes: "this is not JSON\n")`, true},
		{"a command must write output", "v/test/wasm/gocommand", `{"do":"silent"}`, `Operation wrote nothing on stdout: a command writes its output there, one JSON value`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wantErr {
				if got := h.mustFail(t, h.alice, tc.op, tc.input); got != tc.want {
					t.Errorf("error = %q, want %q", got, tc.want)
				}
				return
			}
			if got := h.mustComplete(t, h.alice, tc.op, tc.input); got != tc.want {
				t.Errorf("output = %s, want %s", got, tc.want)
			}
		})
	}
}
