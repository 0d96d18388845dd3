package venue_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func mustCanonical(tb testing.TB, in string) string {
	tb.Helper()
	c, err := venue.Canonicalize([]byte(in))
	if err != nil {
		tb.Fatalf("Canonicalize(%s): %v", in, err)
	}
	return string(c)
}

func TestCanonicalize(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		// RFC 8785 section 3.2.2 example.
		{"RFC 8785 3.2.2 example", `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`, `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		// RFC 8785 section 3.2.3: keys sort by UTF-16 code units, so the
		// emoji (D83D DE00) comes before U+FB33 although its UTF-8 is larger.
		{"RFC 8785 3.2.3 sorting example", `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`, "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\"," +
			"\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{"supplementary key sorts before the top of the BMP", `{"\uffff":1,"\ud800\udc00":2}`, "{\"𐀀\":2,\"\uffff\":1}"},
		{"prefix key sorts first", `{"ab":1,"a":2,"":3,"b":4}`, `{"":3,"a":2,"ab":1,"b":4}`},
		{"upper case before lower case", `{"b":1,"B":2,"a":3,"A":4}`, `{"A":4,"B":2,"a":3,"b":1}`},
		{"nested objects sort too", `{"z":{"y":1,"x":[{"b":1,"a":2}]},"a":null}`, `{"a":null,"z":{"x":[{"a":2,"b":1}],"y":1}}`},
		{"array order is kept", `[3,1,2]`, `[3,1,2]`},
		{"empty object", ` { } `, `{}`},
		{"empty array", "\t[\n]\r\n", `[]`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
		{"top-level string", `"x"`, `"x"`},
		{"top-level number", `1.0`, `1`},
		{"whitespace everywhere", " \t\r\n{ \"a\" :\n[ 1 ,\t2 ] , \"b\"\r: { } }\n ", `{"a":[1,2],"b":{}}`},
		// ES6 Number.prototype.toString.
		{"1e21 uses an exponent", `1e21`, `1e+21`},
		{"1e20 does not", `1e20`, `100000000000000000000`},
		{"1e-7 uses an exponent", `1e-7`, `1e-7`},
		{"0.000001 does not", `0.000001`, `0.000001`},
		{"minus zero", `-0`, `0`},
		{"minus zero with fraction", `-0.0e5`, `0`},
		{"shortest digits", `333333333.33333329`, `333333333.3333333`},
		{"1E30", `1E30`, `1e+30`},
		{"trailing fraction zero", `4.50`, `4.5`},
		{"small exponent", `2e-3`, `0.002`},
		{"integral float", `1.0`, `1`},
		{"negative", `-1.5`, `-1.5`},
		{"exponent with plus sign", `1.5E+2`, `150`},
		{"one tenth", `0.1`, `0.1`},
		{"beyond 2^53", `123456789012345678901234567890`, `1.2345678901234568e+29`},
		{"negative tiny", `-1.5e-9`, `-1.5e-9`},
		{"underflow reads as zero", `1e-400`, `0`},
		// Strings: escape only what JSON requires.
		{"unit separator stays \\u001f", `"\u001f"`, `"\u001f"`},
		{"short escapes", `"\u0008\u0009\u000a\u000c\u000d"`, `"\b\t\n\f\r"`},
		{"NUL", `"\u0000"`, `"\u0000"`},
		{"upper-case hex escape is written lower-case", `"\u001F\u000B"`, `"\u001f\u000b"`},
		{"escaped slash is unescaped", `"a\/b"`, `"a/b"`},
		{"DEL is raw", `"\u007f"`, "\"\x7f\""},
		{"HTML characters are raw", `"\u003c\u003e\u0026"`, `"<>&"`},
		{"non-ASCII is raw", `"\u00e9\u2028\u2029"`, "\"é\u2028\u2029\""},
		{"surrogate pair becomes UTF-8", `"\ud83d\ude00"`, `"😀"`},
		{"quote and backslash", `"\"\\"`, `"\"\\"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustCanonical(t, tc.in)
			if got != tc.want {
				t.Errorf("Canonicalize(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if again := mustCanonical(t, got); again != got {
				t.Errorf("not idempotent: %s -> %s", got, again)
			}
		})
	}
}

// TestCanonicalize_RFC8785Numbers runs the number samples of RFC 8785
// appendix B, given as IEEE 754 bit patterns.
func TestCanonicalize_RFC8785Numbers(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		f := math.Float64frombits(tc.bits)
		// 17 significant digits always name the same double.
		in := strconv.FormatFloat(f, 'e', 16, 64)
		t.Run(strconv.FormatUint(tc.bits, 16), func(t *testing.T) {
			if got := mustCanonical(t, in); got != tc.want {
				t.Errorf("Canonicalize(%s) = %s, want %s", in, got, tc.want)
			}
			if got := mustCanonical(t, "["+tc.want+"]"); got != "["+tc.want+"]" {
				t.Errorf("the canonical form %s is not a fixed point: %s", tc.want, got)
			}
		})
	}
}

func TestCanonicalize_FormattingIndependent(t *testing.T) {
	forms := []string{
		`{"name":"Read","operation":{"adapter":"core:read","input":{"type":"object"}},"n":[1,2.0,3e0]}`,
		"{\n  \"operation\": {\"input\": {\"type\": \"object\"}, \"adapter\": \"core:read\"},\n  \"n\": [1.0, 2, 30e-1],\n  \"name\": \"Re\\u0061d\"\n}\n",
		`{"n":[1E0,0.2e1,3],"operation":{"adapter":"core\u003aread","input":{"type":"object"}},"name":"Read"}`,
	}
	want := mustCanonical(t, forms[0])
	for i, f := range forms {
		if got := mustCanonical(t, f); got != want {
			t.Errorf("form %d canonicalizes to %s, want %s", i, got, want)
		}
	}
}

func TestCanonicalize_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"whitespace only", " \n"},
		{"truncated object", `{"a":1`},
		{"bare word", `hello`},
		{"single quotes", `{'a':1}`},
		{"trailing comma", `[1,2,]`},
		{"leading zero", `012`},
		{"NaN", `NaN`},
		{"Infinity", `Infinity`},
		{"hex number", `0x10`},
		{"number out of range", `1e400`},
		{"negative number out of range", `[-1e309]`},
		{"unescaped control in string", "\"a\x01b\""},
		{"bad escape", `"\x"`},
		{"comment", `{} // hi`},
		{"two values", `{} {}`},
		{"two numbers", `1 2`},
		{"trailing word", `{"a":1} x`},
		{"trailing comma after value", `{"a":1},`},
		// json.Decoder.More reports false before '}' or ']': trailing data
		// is checked by offset instead.
		{"trailing close brace", `{"a":1}}`},
		{"trailing close bracket", `[1]]`},
		{"trailing close bracket after object", `{} ]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := venue.Canonicalize([]byte(tc.in))
			if err == nil {
				t.Fatalf("Canonicalize(%q) = %s, want an error", tc.in, c)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			if !strings.HasPrefix(err.Error(), "Invalid JSON") {
				t.Errorf("message %q does not start with \"Invalid JSON\"", err)
			}
		})
	}
}

func TestAssetIDOf(t *testing.T) {
	compact := `{"name":"Echo","operation":{"adapter":"core:echo"}}`
	pretty := "{\n  \"operation\" : { \"adapter\" : \"core:echo\" },\n  \"name\" : \"Echo\"\n}\n"
	a, err := venue.AssetIDOf([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	b, err := venue.AssetIDOf([]byte(pretty))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("two formattings give %v and %v", a, b)
	}
	if want := venue.AssetID(sha256.Sum256([]byte(compact))); a != want {
		t.Errorf("AssetIDOf = %v, want sha256 of the canonical form %v", a, want)
	}
	other, err := venue.AssetIDOf([]byte(`{"name":"Echo ","operation":{"adapter":"core:echo"}}`))
	if err != nil || other == a {
		t.Errorf("a different value gives id %v, %v; want a different id", other, err)
	}
}

func TestAssetIDOf_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		wantMsg string
	}{
		{"array", `[{"a":1}]`, "Asset metadata must be a JSON object"},
		{"string", `"{}"`, "Asset metadata must be a JSON object"},
		{"number", `42`, "Asset metadata must be a JSON object"},
		{"null", `null`, "Asset metadata must be a JSON object"},
		{"true", `true`, "Asset metadata must be a JSON object"},
		{"invalid JSON", `{"a":`, "Invalid JSON"},
		{"empty", ``, "Invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := venue.AssetIDOf([]byte(tc.in))
			if err == nil {
				t.Fatalf("AssetIDOf(%s) = %v, want an error", tc.in, id)
			}
			if venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error = %q (%s), want EINVALID containing %q", err, venue.ErrorCode(err), tc.wantMsg)
			}
		})
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[1.0,2e-3,-0,1e21,"\u001f\/"]}`,
		`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
		`[333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001]`,
		`"\ud800"`, `"\xff"`, `{"a":1,"a":2}`, `1e400`, `{}`, `[]`, `null`, ` 1 `, `1 2`, `{"a":1} x`,
		`[[[[[[[[[[]]]]]]]]]]`, `{"":{"":{"":""}}}`, `-0.0000033333333333333333`, `5e-324`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := venue.Canonicalize(in)
		var v any
		stdErr := json.Unmarshal(in, &v)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("Canonicalize(%q): code %q, want %q", in, venue.ErrorCode(err), venue.EINVALID)
			}
			// encoding/json lets the last duplicate win; Canonicalize asks
			// for I-JSON, as RFC 8785 does, and refuses duplicates.
			if stdErr == nil && !strings.Contains(err.Error(), "duplicate member name") {
				t.Fatalf("Canonicalize(%q) rejects what encoding/json accepts: %v", in, err)
			}
			return
		}
		if stdErr != nil {
			t.Fatalf("Canonicalize(%q) = %s, but encoding/json rejects the input: %v", in, c, stdErr)
		}
		if !json.Valid(c) {
			t.Fatalf("Canonicalize(%q) = %q, which is not valid JSON", in, c)
		}
		again, err := venue.Canonicalize(c)
		if err != nil || !bytes.Equal(again, c) {
			t.Fatalf("not idempotent: Canonicalize(%q) = %q, then %q, %v", in, c, again, err)
		}
		var w any
		if err := json.Unmarshal(c, &w); err != nil {
			t.Fatalf("canonical %q does not decode: %v", c, err)
		}
		// Same value: decoded float64s are exact, and -0 == 0 under DeepEqual.
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("Canonicalize(%q) = %q holds a different value:\n%#v\n%#v", in, c, v, w)
		}
		// And the canonical form of what encoding/json writes for the value
		// is the same text.
		m, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if viaStd, err := venue.Canonicalize(m); err != nil || !bytes.Equal(viaStd, c) {
			t.Fatalf("Canonicalize(json.Marshal(value of %q)) = %q, %v; want %q", in, viaStd, err, c)
		}
	})
}
