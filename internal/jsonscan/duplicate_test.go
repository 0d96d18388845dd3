package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestDuplicate(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		dup        string // the repeated name, "" for none
		ok         bool
	}{
		{"a scalar", `42`, "", true},
		{"an empty object", ` {} `, "", true},
		{"distinct names", `{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}`, "", true},
		{"at the top", `{"a":1,"a":2}`, "a", true},
		{"nested in an object", `{"x":{"a":1,"b":2,"a":{"c":3}}}`, "a", true},
		{"nested in an array", `[1,{"k":1},{"k":1,"k":2}]`, "k", true},
		{"as an escape", `{"a":1,"\u0061":2}`, "a", true},
		{"escaped slash", `{"a/b":1,"a\/b":2}`, "a/b", true},
		{"non-ASCII", `{"é":1,"\u00e9":2}`, "é", true},
		{"the first of two", `{"x":{"p":1,"p":2},"q":1,"q":2}`, "p", true},
		{"past the short list", `{` + manyNames(20) + `,"n7":0}`, "n7", true},
		{"many distinct", `{` + manyNames(40) + `}`, "", true},
		{"names differing in case", `{"a":1,"A":2}`, "", true},
		{"a string holding a name twice", `{"a":"\"a\":1,\"a\":2"}`, "", true},
		{"deep", strings.Repeat(`[`, 500) + `{"d":1,"d":2}` + strings.Repeat(`]`, 500), "d", true},
		{"not JSON", `{"a":}`, "", false},
		{"trailing text", `{} {}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dup, found, ok := Duplicate([]byte(tc.text))
			if dup != tc.dup || found != (tc.dup != "") || ok != tc.ok {
				t.Fatalf("Duplicate = %q, %v, %v; want %q, %v", dup, found, ok, tc.dup, tc.ok)
			}
		})
	}
}

func manyNames(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"n%d":%d`, i, i)
	}
	return b.String()
}

// modelDuplicate finds the first repeated name with encoding/json's tokens.
func modelDuplicate(dec *json.Decoder) (string, bool) {
	tok, err := dec.Token()
	if err != nil {
		return "", false
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, _ := dec.Token()
			name, _ := k.(string)
			if seen[name] {
				return name, true
			}
			seen[name] = true
			if dup, found := modelDuplicate(dec); found {
				return dup, true
			}
		}
		dec.Token()
	case json.Delim('['):
		for dec.More() {
			if dup, found := modelDuplicate(dec); found {
				return dup, true
			}
		}
		dec.Token()
	}
	return "", false
}

func FuzzDuplicate(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"\u0062":2}}`, `[{"x":1},{"x":1}]`, `{"\ud800":1,"\udc00":2}`,
		"{\"\xff\":1,\"\xfe\":2}", `{"a":[1,{"a":2,"b":3}],"b":null}`, `"s"`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dup, found, ok := Duplicate(b)
		if !json.Valid(b) {
			if ok && !found {
				t.Fatalf("Duplicate judged invalid JSON %q", b)
			}
			return
		}
		want, wantFound := modelDuplicate(json.NewDecoder(bytes.NewReader(b)))
		if !ok || found != wantFound || dup != want {
			t.Fatalf("Duplicate(%q) = %q, %v, %v; encoding/json finds %q, %v", b, dup, found, ok, want, wantFound)
		}
	})
}

// BenchmarkDuplicate measures the check every invoke input and written
// value passes, beside json.Valid on the same text.
func BenchmarkDuplicate(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"items":[`)
	for i := range 5000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"id":%d,"name":"item %d","tags":["a","b"],"price":%d.5,"meta":{"x":true,"y":null}}`, i, i, i)
	}
	doc.WriteString(`]}`)
	for _, tc := range []struct{ name, text string }{
		{"small", `{"n":1,"greeting":"hello"}`},
		{"400KB", doc.String()},
	} {
		text := []byte(tc.text)
		b.Run(tc.name+"/Duplicate", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Duplicate(text)
			}
		})
		b.Run(tc.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				json.Valid(text)
			}
		})
	}
}
