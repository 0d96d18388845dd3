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

// TestArgs_IntegralNumbers checks that an integer field takes a number
// with an integer value however it is written, as JSON Schema's integer
// does, and still refuses one with a fraction.
// TestArgs_CaseVariants: a member named as an argument but for case is
// refused, not taken for the argument as encoding/json would.
func TestArgs_CaseVariants(t *testing.T) {
	for _, tc := range []struct {
		name, raw, op, want string
	}{
		{"own members", `{"fn":"lattice.write","path":"w/a","Path":"s/X"}`, "",
			`the request gives the member "Path": member names are case-sensitive; did you mean "path"?`},
		{"a forwarded input", `{"path":"w/a","MaxSize":1}`, "core:read",
			`core:read: input gives the member "MaxSize": member names are case-sensitive; did you mean "maxSize"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var la latticeArgs
			err := args{raw: []byte(tc.raw), op: tc.op}.decode(&la)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("decode(%s) = %v; want %q", tc.raw, err, tc.want)
			}
		})
	}
	var la latticeArgs
	if err := (args{raw: []byte(`{"path":"w/a","note":"Path"}`)}).decode(&la); err != nil || la.Path != "w/a" {
		t.Fatalf("exact names: %v, %+v", err, la)
	}
	// core:write's input forwarded whole: "To" and "Limit" are no
	// arguments of lattice.write, whatever other functions take.
	la = latticeArgs{}
	if err := (args{raw: []byte(`{"path":"w/a","value":1,"To":"x","Limit":2}`), op: "core:write"}).decodeTaking(&la, latticeTakes["lattice.write"]); err != nil || la.Path != "w/a" {
		t.Fatalf("members of other functions: %v, %+v", err, la)
	}
}

func TestArgs_IntegralNumbers(t *testing.T) {
	var v struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	for _, tc := range []struct{ name, raw, want string }{
		{"1.0 and 1e2", `{"path":"w/v","offset":1.0,"limit":1e2}`, ""},
		{"a fraction", `{"path":"w/v","offset":1.5}`, "core:slice: 'offset' must be an integer, got number 1.5"},
		{"past 2^53", `{"offset":1e300}`, "core:slice: 'offset' must be an integer, got number 1e300"},
		{"past 2^63", `{"offset":99999999999999999999}`,
			"core:slice: 'offset' is out of range: 99999999999999999999 does not fit an integer here (-9223372036854775808 to 9223372036854775807)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := args{raw: []byte(tc.raw), op: "core:slice"}.decode(&v)
			if tc.want == "" {
				if err != nil || v.Offset != 1 || v.Limit != 100 {
					t.Fatalf("%+v, %v", v, err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("%v, want %s", err, tc.want)
			}
		})
	}
}
