package runtime

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/gridvenue/venue/runtime/outbound"
)

func TestHTTPResponse_AppendJSON(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"text keeps <, > and & as they are", "<p>a & b</p>", `"body":"<p>a & b</p>"`},
		{"text may hold tabs, line breaks and form feeds", "a\tb\r\nc\fd\b", `"body":"a\tb\r\nc\fd\b"`},
		{"an empty body is text", "", `"body":""`},
		{"a NUL makes it binary", "a\x00b", `"bodyBase64":"YQBi"`},
		{"an escape character makes it binary", "\x1b[31m", `"bodyBase64":"G1szMW0="`},
		{"bytes that are not UTF-8 come whole", "\xff\xfe", `"bodyBase64":"//4="`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &HTTPResponse{Status: 200, Headers: map[string]string{"x-a": "<b>"}, Body: tc.body, URL: "http://h/?a=1&b=2"}
			got := string(r.AppendJSON(nil))
			want := `{"status":200,"headers":{"x-a":"<b>"},` + tc.want + `,"url":"http://h/?a=1&b=2"}`
			if got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			if m, _ := r.MarshalJSON(); string(m) != got {
				t.Fatalf("MarshalJSON gives %s", m)
			}
		})
	}
}

// TestHTTPResponse_WorstCaseFits checks every body within maxHTTPBody,
// with headers as large as outbound allows, fits a host call's result and
// an operation's output (16 MiB each): a body of '<' or NULs at a third
// of the old 10 MiB limit failed as a result too large.
func TestHTTPResponse_WorstCaseFits(t *testing.T) {
	const resultCap = 16 << 20 // wasm's maxHostIO and the default MaxOutputSize
	random := make([]byte, maxHTTPBody)
	for i := range random {
		random[i] = byte(rand.Uint32())
	}
	// Headers as large as allowed, each value one byte that is not UTF-8
	// (U+FFFD, three bytes) beside quotes (two bytes each).
	headers := map[string]string{}
	raw := strings.Repeat("\x80\"", 15)
	for i, size := 0, 0; size < outbound.MaxHeaderBytes; i++ {
		k := "k" + strconv.Itoa(i)
		headers[k] = utf8Text(raw)
		size += len(k) + len(": \r\n") + len(raw)
	}
	for _, body := range map[string]string{
		"quotes": strings.Repeat(`"`, maxHTTPBody), "<": strings.Repeat("<", maxHTTPBody),
		"NULs": strings.Repeat("\x00", maxHTTPBody), "random": string(random),
		"line separators": strings.Repeat("\u2028", maxHTTPBody/3),
	} {
		r := &HTTPResponse{Status: 200, Headers: headers, Body: body, URL: "http://example.com/"}
		out := r.AppendJSON(nil)
		if len(out) > resultCap {
			t.Errorf("a body of %d bytes gives %d bytes of JSON, more than %d", len(body), len(out), resultCap)
		}
		var back httpAnswer
		if err := json.Unmarshal(out, &back); err != nil || (back.Body == nil || *back.Body != body) && string(back.BodyBase64) != body {
			t.Errorf("the body of %d bytes does not come back: %v", len(body), err)
		}
	}
}

// TestAnswer_HeaderNames checks that a secret echoed in a response header
// name is hidden, in any case: Go's reader changes the case of a name's
// letters, and the guest sees it lower-cased.
func TestAnswer_HeaderNames(t *testing.T) {
	for _, tc := range []struct{ name, secret, header, want string }{
		{"mixed case", "sk-Live-AbCdEf123456", "x-sk-Live-AbCdEf123456", "x-HIDDEN"},
		{"as it is", "sk-Live-AbCdEf123456", "sk-Live-AbCdEf123456 x", "HIDDEN x"},
		{"a lower-case secret", "sk-live-abcdef123456", "Sk-Live-Abcdef123456-Echo", "HIDDEN-echo"},
		{"no secret", "sk-live-abcdef123456", "Content-Type", "content-type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{j: &job{mask: &masker{}}}
			env.j.mask.add(tc.secret)
			u, _ := url.Parse("http://example.com/")
			resp := &http.Response{StatusCode: 200, Header: http.Header{http.CanonicalHeaderKey(tc.header): {"v"}}, Request: &http.Request{URL: u}}
			got := env.answer(resp, nil, nil)
			if _, ok := got.Headers[tc.want]; !ok || len(got.Headers) != 1 {
				t.Errorf("headers %q, want %q", got.Headers, tc.want)
			}
		})
	}
}
