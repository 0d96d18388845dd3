package rest

import (
	"strings"
	"testing"
)

func TestNoneMatch(t *testing.T) {
	const tag = `"0xab12"`
	for _, tc := range []struct {
		name, field string
		want        bool
	}{
		{"empty", "", false},
		{"the tag", tag, true},
		{"a weak tag compares weakly", "W/" + tag, true},
		{"a star", "*", true},
		{"a star in a list", `"x", *`, true},
		{"another tag", `"0xab13"`, false},
		{"the tag later in a list", `"a", W/"b" ,` + tag, true},
		{"a comma inside a tag", `"a,` + tag[1:], false},
		{"lines joined with commas", `"a",` + tag, true},
		{"a malformed member is skipped", `junk,` + tag, true},
		{"an unclosed tag", `"0xab12`, false},
		{"the tag unquoted", "0xab12", false},
		{"a lone W/", "W/", false},
		{"a quoted star is a tag", `"*"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := noneMatch(tc.field, tag); got != tc.want {
				t.Errorf("noneMatch(%q, %s) = %v, want %v", tc.field, tag, got, tc.want)
			}
		})
	}
}

func TestETagOf(t *testing.T) {
	// The SHA-256 of "1".
	if got, want := etagOf([]byte("1")), `"0x6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"`; got != want {
		t.Fatalf("etagOf(1) = %s, want %s", got, want)
	}
}

// FuzzNoneMatch feeds If-None-Match values from outside: the parser must
// end, and a field listing the tag among well-formed members must match.
func FuzzNoneMatch(f *testing.F) {
	const tag = `"0xab12"`
	for _, seed := range []string{"", "*", tag, `W/"a", "b"`, `"a,b"`, `junk,,"`, `W/`, `"` + "\x00" + `"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, field string) {
		noneMatch(field, tag)
		if !strings.ContainsAny(field, `"`) && !noneMatch(field+", "+tag, tag) {
			t.Fatalf("%q followed by the tag does not match", field)
		}
	})
}
