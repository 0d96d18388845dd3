package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCompacted(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"object", `{"a":[1,2.5e-3,"x y"],"b":{"c":null}}`, true},
		{"scalar", `"did:web:example.com"`, true},
		{"number", `-0.5E+3`, true},
		{"escapes and non-ASCII", `{"a":"\u00e9\n\"","é":"\t"}`, true},
		{"space after a colon", `{"a": 1}`, false},
		{"newline between members", "{\"a\":1,\n\"b\":2}", false},
		{"space in an array", `[1, 2]`, false},
		{"leading space", ` {}`, false},
		{"trailing newline", "{}\n", false},
		{"two values", `{}{}`, false},
		{"not JSON", `{"a":}`, false},
		{"empty", ``, false},
		{"deeper than MaxDepth", strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Compacted([]byte(tc.in)); got != tc.want {
				t.Fatalf("Compacted(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzCompacted holds Compacted to encoding/json: whatever it accepts is
// valid and comes out of json.Compact unchanged, and whatever json.Compact
// leaves unchanged (within MaxDepth) it accepts.
func FuzzCompacted(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"\u00e9"],"b":null}`, `{"a": 1}`, "[1,\n2]", `"x"`, `tru`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf bytes.Buffer
		err := json.Compact(&buf, b)
		same := err == nil && bytes.Equal(buf.Bytes(), b)
		got := Compacted(b)
		if got && !same {
			t.Fatalf("Compacted(%q) = true; json.Compact gives %q, %v", b, buf.Bytes(), err)
		}
		if !got && same && depth(b) <= MaxDepth {
			t.Fatalf("Compacted(%q) = false; json.Compact leaves it as it is", b)
		}
	})
}

// depth is b's deepest nesting of brackets outside strings, for valid b.
func depth(b []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, ch := range b {
		switch {
		case escaped:
			escaped = false
		case inString && ch == '\\':
			escaped = true
		case ch == '"':
			inString = !inString
		case inString:
		case ch == '[' || ch == '{':
			d++
			most = max(most, d)
		case ch == ']' || ch == '}':
			d--
		}
	}
	return most
}

func BenchmarkCompacted(b *testing.B) {
	out := []byte(`{"exists":true,"value":"did:web:127.0.0.1%3A18080","valueBytes":27}`)
	b.Run("jsonscan", func(b *testing.B) {
		for b.Loop() {
			if !Compacted(out) {
				b.Fatal("not compact")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			if json.Compact(&buf, out) != nil {
				b.Fatal("not JSON")
			}
		}
	})
}
