package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCursor_Value(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"every kind", `{"a":[1,-2.5e+3,"x\"\u00e9",true,false,null,{}],"b":{"c":[]}}`, true},
		{"spaces", " [ 1 , { \"a\" : 2 } ] ", true},
		{"a leading zero", `01`, true}, // Value reads 0; what follows is the caller's
		{"a bare minus", `-`, false},
		{"a bad escape", `"\x"`, false},
		{"a short \\u", `"\u00e"`, false},
		{"a control character", "\"\x01\"", false},
		{"a missing colon", `{"a" 1}`, false},
		{"a trailing comma", `[1,]`, false},
		{"an unclosed array", `[1`, false},
		{"nested past MaxDepth", strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), false},
		{"nested to MaxDepth", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New([]byte(tc.in))
			c.Space()
			if got := c.Value(); got != tc.ok {
				t.Fatalf("Value: %v, want %v", got, tc.ok)
			}
		})
	}
}

func TestCursor_PlainString(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", `"v/ops/core/read"`, "v/ops/core/read", true},
		{"empty", `""`, "", true},
		{"an escape", `"a\/b"`, "", false},
		{"non-ASCII", `"é"`, "", false},
		{"unterminated", `"abc`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := New([]byte(tc.in)).PlainString()
			if ok != tc.ok || got != tc.want {
				t.Fatalf("got %q %v, want %q %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestCursor_Object(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		keys     string // the keys member saw, joined by commas
		ok       bool
	}{
		{"members", ` { "a" : 1 , "b":[2] } `, "a,b", true},
		{"empty", `{}`, "", true},
		{"member refuses", `{"a":1,"stop":2,"c":3}`, "a,stop", false},
		{"a key with an escape", `{"a\/b":1}`, "", false},
		{"text after it", `{"a":1} {}`, "a", false},
		{"a trailing comma", `{"a":1,}`, "a", false},
		{"not an object", `[1]`, "", false},
		{"unclosed", `{"a":1`, "a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New([]byte(tc.in))
			var keys []string
			ok := c.Object(func(key string) bool {
				keys = append(keys, key)
				return key != "stop" && c.Value()
			})
			if ok != tc.ok || strings.Join(keys, ",") != tc.keys {
				t.Fatalf("Object = %v after keys %q, want %v after %q", ok, keys, tc.ok, tc.keys)
			}
		})
	}
}

// FuzzValue holds Value to encoding/json: what it reads is one valid JSON
// value, and a plain string decodes to what PlainString returns.
func FuzzValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"\u00e9"],"b":null}`, `"x"`, `-0.0E+1`, `[[],{}]`, `tru`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := New(b)
		if c.Value() && !json.Valid(b[:c.Pos()]) {
			t.Fatalf("Value read %q, which is not JSON", b[:c.Pos()])
		}
		c = New(b)
		if s, ok := c.PlainString(); ok {
			var want string
			if err := json.Unmarshal(b[:c.Pos()], &want); err != nil || want != s {
				t.Fatalf("PlainString read %q from %q; encoding/json gives %q (%v)", s, b[:c.Pos()], want, err)
			}
		}
	})
}
