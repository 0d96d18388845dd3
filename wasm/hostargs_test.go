package wasm

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestCallState_Split(t *testing.T) {
	c := &callState{op: "core:read"}
	for _, tc := range []struct {
		name, req   string
		fn, args    string
		forwarded   bool
		wantRefusal bool
	}{
		{name: "forwarded input", req: `{"fn":"lattice.read","args":{"path":"w/a"}}`,
			fn: "lattice.read", args: `{"path":"w/a"}`, forwarded: true},
		{name: "own members", req: `{"fn":"lattice.read","path":"w/a"}`,
			fn: "lattice.read", args: `{"fn":"lattice.read","path":"w/a"}`},
		{name: "forwarded with spaces", req: `{ "fn": "lattice.read", "args": {"path": "w/a"} }`,
			fn: "lattice.read", args: `{"path": "w/a"}`, forwarded: true},
		{name: "args first", req: `{"args":{"path":"w/a"},"fn":"lattice.read"}`,
			fn: "lattice.read", args: `{"path":"w/a"}`, forwarded: true},
		{name: "escaped name", req: `{"fn":"lattice\u002eread","args":{}}`,
			fn: "lattice.read", args: `{}`, forwarded: true},
		{name: "members after args", req: `{"fn":"lattice.read","args":{"path":"w/a"},"x":{}}`,
			fn: "lattice.read", args: `{"path":"w/a"}`, forwarded: true},
		{name: "no fn", req: `{"args":{}}`, wantRefusal: true},
		{name: "not an object", req: `[1]`, wantRefusal: true},
		{name: "not JSON", req: `{"fn":"lattice.read","args":{`, wantRefusal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn, a, err := c.split([]byte(tc.req))
			if tc.wantRefusal {
				if err == nil {
					t.Fatalf("split(%s) = %q, %s; want a refusal", tc.req, fn, a.raw)
				}
				return
			}
			if err != nil {
				t.Fatalf("split(%s): %v", tc.req, err)
			}
			if fn != tc.fn || (a.op != "") != tc.forwarded {
				t.Errorf("split(%s) = %q forwarded=%v; want %q forwarded=%v", tc.req, fn, a.op != "", tc.fn, tc.forwarded)
			}
			if err := a.decode(new(map[string]any)); err != nil {
				t.Errorf("the arguments %s do not decode: %v", a.raw, err)
			}
			if !jsonSame(a.raw, []byte(tc.args)) {
				t.Errorf("arguments %s; want %s", a.raw, tc.args)
			}
		})
	}
}

// FuzzSplit: whatever a guest sends, split either refuses it or finds the
// function and arguments a JSON decoder finds, so the fast path for
// guest.Forward's requests never reads a request differently.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`{"fn":"lattice.read","args":{"path":"w/a"}}`, `{"fn":"lattice.read","path":"w/a"}`,
		`{"fn":"a\"b","args":{}}`, `{"fn":"x","args":{}},"fn":"y"}`, `{"fn":"x","args":{"a":1}} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		c := &callState{op: "core:read"}
		fn, a, err := c.split(req)
		if err != nil {
			return
		}
		var head struct {
			Fn   string          `json:"fn"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(req, &head); err != nil {
			t.Fatalf("split took %q, which a decoder refuses (%v), as %q with arguments %s", req, err, fn, a.raw)
		}
		if fn != head.Fn {
			t.Fatalf("split(%q) found fn %q; a decoder finds %q", req, fn, head.Fn)
		}
		if head.Args != nil && !jsonSame(a.raw, head.Args) {
			t.Fatalf("split(%q) found arguments %s; a decoder finds %s", req, a.raw, head.Args)
		}
	})
}

func jsonSame(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
