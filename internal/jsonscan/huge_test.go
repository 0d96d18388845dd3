package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHuge(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string
	}{
		{"plain numbers", `{"a":1,"b":-2.5,"c":[0,1e10,3E-7]}`, ""},
		{"the largest double", `1.7976931348623157e308`, ""},
		{"just past it", `[1.8e308]`, "1.8e308"},
		{"an exponent past it", `{"n":1e999}`, "1e999"},
		{"negative", `{"n":-1e999}`, "-1e999"},
		{"a capital E with a sign", `[2E+400]`, "2E+400"},
		{"too small is zero, not huge", `[1e-999]`, ""},
		{"308 digits", `[` + strings.Repeat("9", 308) + `]`, ""},
		{"309 digits", `[` + strings.Repeat("9", 309) + `]`, strings.Repeat("9", 309)},
		{"309 digits below the largest double", `[1` + strings.Repeat("0", 308) + `]`, ""},
		{"digits and an exponent together", `[12345.6e305]`, "12345.6e305"},
		{"a fraction with a large exponent", `[0.00001e310]`, ""},
		{"many digits and a negative exponent", `[` + strings.Repeat("9", 400) + `e-100]`, ""},
		{"inside a string", `{"s":"1e999"}`, ""},
		{"a string with an escaped quote before it", `{"s":"\"1e999"}`, ""},
		{"after an escaped backslash", `{"s":"\\","n":1e999}`, "1e999"},
		{"as a member name", `{"1e999":1}`, ""},
		{"the first of two", `[1e400,1e500]`, "1e400"},
		{"spaced", "[ 1 , 1e999 ]", "1e999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Huge([]byte(tc.json)); got != tc.want {
				t.Fatalf("Huge(%s) = %q, want %q", tc.json, got, tc.want)
			}
		})
	}
}

// FuzzHuge holds Huge to encoding/json: valid JSON text has a huge number
// exactly when decoding it into any fails, and the number Huge names is one
// encoding/json refuses.
func FuzzHuge(f *testing.F) {
	for _, s := range []string{`1`, `[1e999]`, `{"a":"1e999","b":-2e308}`, `[1e-999,1.5]`, `"\\"`, `[` + strings.Repeat("9", 309) + `]`, `[1.5e307]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) || Deeper([]byte(text), 1000) {
			return
		}
		var v any
		err := json.Unmarshal([]byte(text), &v)
		got := Huge([]byte(text))
		if (got != "") != (err != nil) {
			t.Fatalf("Huge(%s) = %q, but decoding it gave %v", text, got, err)
		}
		if got != "" && json.Unmarshal([]byte(got), &v) == nil {
			t.Fatalf("Huge(%s) = %q, which decodes", text, got)
		}
	})
}
