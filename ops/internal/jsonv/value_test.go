package jsonv

import (
	"encoding/json"
	"testing"
)

func TestParse_RoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":[true,null,"x"],"c":{"z":1.50,"y":-2e3}}`, `{"b":1,"a":[true,null,"x"],"c":{"z":1.50,"y":-2e3}}`},
		{` {"a":1,"a":2,"b":3} `, `{"a":2,"b":3}`},
		{`"tab\t quote\" nl\n \u0001 é <&>"`, `"tab\t quote\" nl\n \u0001 é <&>"`},
		{`12345678901234567890`, `12345678901234567890`},
	} {
		v, err := Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", tc.in, err)
		}
		if got := string(Append(nil, v)); got != tc.want {
			t.Errorf("Append(Parse(%s)) = %s, want %s", tc.in, got, tc.want)
		}
		if !json.Valid(Append(nil, v)) {
			t.Errorf("Append(Parse(%s)) is not valid JSON", tc.in)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,]`, `1 2`, `{"a":1}x`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", in)
		}
	}
}

func TestTruthy(t *testing.T) {
	for in, want := range map[string]bool{
		`null`: false, `false`: false, `0`: false, `0.0`: false, `""`: false, `[]`: false, `{}`: false,
		`true`: true, `1`: true, `-0.5`: true, `"0"`: true, `[0]`: true, `{"a":null}`: true,
	} {
		v, _ := Parse([]byte(in))
		if got := Truthy(v); got != want {
			t.Errorf("Truthy(%s) = %v, want %v", in, got, want)
		}
	}
}
