package wasm

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestQuickLattice(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     latticeArgs
		declined bool
	}{
		{name: "path", in: `{"path":"v/info/did"}`, want: latticeArgs{Path: "v/info/did"}},
		{name: "every member", in: ` { "path" : "w/a" , "maxSize":-0,"offset":3,"limit":-2,"value":{"x":[1,"é"]},"from":"w/b","to":"w/c" } `,
			want: latticeArgs{Path: "w/a", Offset: 3, Limit: -2, Value: json.RawMessage(`{"x":[1,"é"]}`), From: "w/b", To: "w/c"}},
		{name: "a request's own members", in: `{"fn":"lattice.read","path":"w/a"}`, want: latticeArgs{Path: "w/a"}},
		{name: "empty object", in: `{}`},
		{name: "value null", in: `{"value":null}`, want: latticeArgs{Value: json.RawMessage(`null`)}},
		{name: "another member", in: `{"path":"w/a","deep":true}`, declined: true},
		{name: "key in another case", in: `{"Path":"w/a"}`, declined: true},
		{name: "repeated key", in: `{"path":"w/a","path":"w/b"}`, declined: true},
		{name: "escape in a string", in: `{"path":"w\/a"}`, declined: true},
		{name: "non-ASCII string", in: `{"path":"w/é"}`, declined: true},
		{name: "null integer", in: `{"limit":null}`, declined: true},
		{name: "fraction", in: `{"limit":1.5}`, declined: true},
		{name: "exponent", in: `{"limit":1e2}`, declined: true},
		{name: "overflow", in: `{"offset":99999999999999999999}`, declined: true},
		{name: "string integer", in: `{"limit":"2"}`, declined: true},
		{name: "trailing text", in: `{"path":"w/a"} x`, declined: true},
		{name: "not an object", in: `["path"]`, declined: true},
		{name: "unclosed", in: `{"path":"w/a"`, declined: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := quickLattice([]byte(tc.in))
			if ok == tc.declined {
				t.Fatalf("quickLattice(%s) ok = %v, want %v", tc.in, ok, !tc.declined)
			}
			if ok {
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("quickLattice(%s) = %#v, want %#v", tc.in, got, tc.want)
				}
				sameAsDecode(t, []byte(tc.in), got)
			}
		})
	}
}

// FuzzQuickLattice holds the quick path to encoding/json's answers: what it
// accepts, encoding/json must decode into the same arguments.
func FuzzQuickLattice(f *testing.F) {
	for _, s := range []string{`{"path":"v/info/did"}`, `{"path":"w/a","maxSize":10,"value":[1,{"a":null}]}`,
		`{"from":"w/a","to":"w/b"}`, `{"fn":"lattice.list","path":"w","offset":-0,"limit":5}`, ` { } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if quick, ok := quickLattice(b); ok {
			sameAsDecode(t, b, quick)
		}
	})
}

func sameAsDecode(t *testing.T, b []byte, quick latticeArgs) {
	t.Helper()
	var slow latticeArgs
	if err := json.Unmarshal(b, &slow); err != nil {
		t.Fatalf("quick path accepted %q, which encoding/json refuses: %v", b, err)
	}
	if !reflect.DeepEqual(quick, slow) {
		t.Fatalf("for %q the quick path gives %#v, encoding/json %#v", b, quick, slow)
	}
}

// The arguments come from a view of the guest's memory: the value must not
// change when the guest rewrites it after the call.
func TestQuickLattice_CopiesValue(t *testing.T) {
	b := []byte(`{"path":"w/a","value":{"x":1}}`)
	got, ok := quickLattice(b)
	if !ok {
		t.Fatal("quickLattice declined a plain write")
	}
	copy(b, bytes.Repeat([]byte("!"), len(b)))
	if string(got.Value) != `{"x":1}` {
		t.Fatalf("value = %s after the buffer changed, want {\"x\":1}", got.Value)
	}
}
