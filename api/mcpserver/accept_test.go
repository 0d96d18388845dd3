package mcpserver

import (
	"net/http/httptest"
	"testing"
)

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		name, accept string
		rewritten    bool
		framed       bool
	}{
		{"both", "application/json, text/event-stream", false, false},
		{"any", "*/*", false, false},
		{"none given", "", false, false},
		{"json only", "application/json", true, false},
		{"stream only", "text/event-stream", true, true},
		{"stream only with parameters", "text/event-stream;q=0.9", true, true},
		{"neither", "text/html", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", nil)
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			got, framed := negotiate(httptest.NewRecorder(), r)
			if (got != r) != tc.rewritten || (framed != nil) != tc.framed {
				t.Fatalf("rewritten %v framed %v, want %v %v", got != r, framed != nil, tc.rewritten, tc.framed)
			}
			if tc.rewritten && !acceptsBoth(got.Header.Values("Accept")) {
				t.Fatalf("Accept %q after negotiate", got.Header.Get("Accept"))
			}
		})
	}
}

// TestSSEFrame checks that a JSON answer, indented or not, becomes one
// event whose data lines join back into it, and that others pass through.
func TestSSEFrame(t *testing.T) {
	for _, tc := range []struct{ name, ctype, body, want string }{
		{"compact", "application/json", "{\"a\":1}\n", "event: message\ndata: {\"a\":1}\n\n"},
		{"indented", "application/json; charset=utf-8", "{\n  \"a\": 1\n}", "event: message\ndata: {\ndata:   \"a\": 1\ndata: }\n\n"},
		{"plain text", "text/plain", "no", "no"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			f := &sseFrame{ResponseWriter: rec}
			f.Header().Set("Content-Type", tc.ctype)
			f.Write([]byte(tc.body))
			f.finish()
			if rec.Body.String() != tc.want {
				t.Fatalf("body %q, want %q", rec.Body, tc.want)
			}
		})
	}
}
