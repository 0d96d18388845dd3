package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCaseVariant(t *testing.T) {
	names := []string{"path", "maxSize"}
	for _, tc := range []struct {
		name, in, got, want string
	}{
		{"exact names", `{"path":"w/a","maxSize":3}`, "", ""},
		{"other names", `{"path":"w/a","note":{"Path":1}}`, "", ""},
		{"a variant after the name", `{"path":"w/a","Path":"w/b"}`, "Path", "path"},
		{"a variant alone", `{"maxsize":1}`, "maxsize", "maxSize"},
		{"a variant with spaces", `{ "PATH" : "s/X" }`, "PATH", "path"},
		{"a variant spelled with an escape", `{"\u0050ath":"w/b"}`, "Path", "path"},
		{"not an object", `["Path"]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := CaseVariant([]byte(tc.in), names)
			if got != tc.got || want != tc.want {
				t.Fatalf("CaseVariant(%s) = %q, %q; want %q, %q", tc.in, got, want, tc.got, tc.want)
			}
		})
	}
}

func TestCaseTwins(t *testing.T) {
	for _, tc := range []struct {
		name, in, a, b string
	}{
		{"distinct names", `{"sha256":"x","contentType":"y"}`, "", ""},
		{"two spellings", `{"sha256":"x","SHA256":"y"}`, "SHA256", "sha256"},
		{"the Kelvin sign is k", "{\"key\":1,\"\u212aey\":2}", "key", "\u212aey"},
		{"a long s is s", "{\"secretFields\":[],\"\u017fecretFields\":[]}", "secretFields", "\u017fecretFields"},
		{"escapes", `{"Input":1,"\u0069nput":2}`, "Input", "input"},
		{"nested twins are not this object's", `{"a":{"x":1,"X":2}}`, "", ""},
		{"not an object", `[1]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := CaseTwins([]byte(tc.in))
			if a != tc.a || b != tc.b {
				t.Fatalf("CaseTwins(%s) = %q, %q; want %q, %q", tc.in, a, b, tc.a, tc.b)
			}
		})
	}
}

// FuzzCaseTwins holds CaseTwins to strings.EqualFold, which is how
// encoding/json matches names: a pair it names is equal under EqualFold,
// and it names one whenever two members are.
func FuzzCaseTwins(f *testing.F) {
	f.Add("a", "A")
	f.Add("k", "\u212a")
	f.Add("ß", "ẞ")
	f.Fuzz(func(t *testing.T, x, y string) {
		if !utf8.ValidString(x) || !utf8.ValidString(y) {
			return // JSON would hold U+FFFD for both
		}
		obj, _ := json.Marshal(map[string]int{x: 1, y: 2})
		a, b := CaseTwins(obj)
		twins := x != y && strings.EqualFold(x, y)
		if twins != (a != "") || a != "" && !strings.EqualFold(a, b) {
			t.Fatalf("CaseTwins(%s) = %q, %q; EqualFold(%q, %q) = %v", obj, a, b, x, y, strings.EqualFold(x, y))
		}
	})
}
