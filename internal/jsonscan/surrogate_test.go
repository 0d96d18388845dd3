package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLoneSurrogate(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       bool
	}{
		{"no escape", `"abcd"`, false},
		{"a pair", `"\ud83d\ude00"`, false},
		{"a pair in capitals", `"\uD83D\uDE00"`, false},
		{"a high half alone", `"\ud800abcd"`, true},
		{"a high half at the end", `"ab\ud800"`, true},
		{"a low half alone", `"\udc00"`, true},
		{"two high halves", `"\ud800\ud800"`, true},
		{"a high half before another escape", `"\ud800\n"`, true},
		{"an escaped backslash before u", `"\\ud800"`, false},
		{"an escaped backslash, then a lone half", `"\\\ud800"`, true},
		{"a plain escape", `"\u00e9\t"`, false},
		{"in an object", `{"value":"x\udfff"}`, true},
		{"the character itself", "\"\U0001F600\"", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LoneSurrogate([]byte(tc.json)); got != tc.want {
				t.Fatalf("LoneSurrogate(%s) = %v, want %v", tc.json, got, tc.want)
			}
		})
	}
}

// FuzzLoneSurrogate holds LoneSurrogate to encoding/json: of a JSON string
// that does not write U+FFFD itself, it flags those that decode to one.
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\udc00\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s string
		if json.Unmarshal([]byte(text), &s) != nil || !utf8.ValidString(text) ||
			strings.ContainsRune(text, utf8.RuneError) || strings.Contains(strings.ToLower(text), "fffd") {
			return
		}
		replaced := strings.ContainsRune(s, utf8.RuneError)
		if got := LoneSurrogate([]byte(text)); got != replaced {
			t.Fatalf("LoneSurrogate(%s) = %v, but decoding it gave %q", text, got, s)
		}
	})
}
