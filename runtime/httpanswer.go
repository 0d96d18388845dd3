package runtime

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// maxHTTPBody is the default limit on the body of a response to an
// operation's HTTP request (Config.Outbound.MaxResponse), counted after a
// Content-Encoding is undone. A host call's result and an operation's
// output hold 16 MiB each, and every body within the limit fits in them
// with its headers (outbound.MaxHeaderBytes): as text, which JSON makes at
// most twice as long, or in base64, a third longer (see AppendJSON).
const maxHTTPBody = 6 << 20

// httpAnswer is the JSON form of an HTTPResponse: the body as text when it
// is text, else in base64.
type httpAnswer struct {
	Status     int               `json:"status"`
	Headers    map[string]string `json:"headers"`
	Body       *string           `json:"body,omitempty"`
	BodyBase64 []byte            `json:"bodyBase64,omitempty"`
	URL        string            `json:"url"`
}

// AppendJSON appends the response as the guest receives it, without
// escaping '<', '>' and '&' as encoding/json does by default (six bytes
// for one). A body that is not text (isText) comes in base64 as
// bodyBase64: in a JSON string a NUL takes six bytes and a byte that is
// not UTF-8 is lost, while base64 keeps every byte at a third more.
func (r *HTTPResponse) AppendJSON(b []byte) []byte {
	a := httpAnswer{Status: r.Status, Headers: r.Headers, URL: r.URL}
	if isText(r.Body) {
		a.Body = &r.Body
	} else {
		a.BodyBase64 = []byte(r.Body)
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(a) // cannot fail: strings, numbers and a map of strings
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// MarshalJSON gives the same form as AppendJSON.
func (r *HTTPResponse) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// isText reports whether body is UTF-8 without control characters other
// than those JSON writes in two bytes (\b, \t, \n, \f, \r): text that a
// JSON string holds at most twice as long.
func isText(body string) bool {
	if !utf8.ValidString(body) {
		return false
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c < ' ' && c != '\b' && c != '\t' && c != '\n' && c != '\f' && c != '\r' {
			return false
		}
	}
	return true
}
