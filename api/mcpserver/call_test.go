package mcpserver

import (
	"reflect"
	"testing"
)

func TestSplitUCANs(t *testing.T) {
	for _, tc := range []struct {
		name, args, input string
		ucans             []string
		bad               bool
	}{
		{"none", `{"path":"w"}`, `{"path":"w"}`, nil, false},
		{"taken out", `{"path":"w","ucans":["a.b.c"]}`, `{"path":"w"}`, []string{"a.b.c"}, false},
		{"null", `{"ucans":null,"x":1}`, `{"x":1}`, nil, false},
		{"nested ones stay", `{"value":{"ucans":["t"]}}`, `{"value":{"ucans":["t"]}}`, nil, false},
		{"not a list", `{"ucans":"t"}`, ``, nil, true},
		{"not strings", `{"ucans":[1]}`, ``, nil, true},
		{"empty arguments", ``, ``, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input, ucans, err := splitUCANs([]byte(tc.args))
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v, want bad %v", err, tc.bad)
			}
			if !tc.bad && (string(input) != tc.input || !reflect.DeepEqual(ucans, tc.ucans)) {
				t.Fatalf("splitUCANs(%s) = %s, %v; want %s, %v", tc.args, input, ucans, tc.input, tc.ucans)
			}
		})
	}
}
