package mcpbridge

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestExchange_Observe(t *testing.T) {
	for _, tc := range []struct {
		name, method, contentType, body string
		status                          int
		wantStatus                      int
		wantReason, wantGarbage         string
	}{
		{"JSON-RPC error without id", "POST", "application/json", `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`, 400,
			400, "Bad Request: No valid session ID provided", ""},
		{"error string", "POST", "application/json; charset=utf-8", `{"error":"quota used up"}`, 429, 429, "quota used up", ""},
		{"plain text, first line", "POST", "text/plain", "session not found\nmore", 404, 404, "session not found", ""},
		{"HTML page", "POST", "text/html", "<!DOCTYPE html><p>oops</p>", 502, 502, "Bad Gateway", ""},
		{"empty body", "DELETE", "", "", 410, 410, "Gone", ""},
		{"JSON-RPC answer", "POST", "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`, 200, 0, "", ""},
		{"batch answer", "POST", "application/json", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, 200, 0, "", ""},
		{"JSON that is not JSON-RPC", "POST", "application/json", `{"hello":"world"}`, 200, 0, "", "its JSON answer is not a JSON-RPC 2.0 message"},
		{"broken JSON", "POST", "application/json", `{"jsonrpc":"2.0",`, 200, 0, "", "its JSON answer is not a JSON-RPC 2.0 message"},
		{"a web page", "POST", "text/html; charset=utf-8", `<p>hi</p>`, 200, 0, "", "it answered with Content-Type text/html"},
		{"an event stream", "POST", "text/event-stream", "data: {}\n\n", 200, 0, "", ""},
		{"a notification accepted", "POST", "", "", 202, 0, "", ""},
		{"a notification answered 200 without a body", "POST", "application/json", "", 200, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, "http://example.com/mcp", nil)
			resp := &http.Response{StatusCode: tc.status, Header: http.Header{}, Request: req,
				Body: io.NopCloser(strings.NewReader(tc.body))}
			if tc.contentType != "" {
				resp.Header.Set("Content-Type", tc.contentType)
			}
			x := &exchange{}
			x.observe(resp)
			if status, reason := x.refusal(); status != tc.wantStatus || reason != tc.wantReason {
				t.Errorf("refusal = %d %q, want %d %q", status, reason, tc.wantStatus, tc.wantReason)
			}
			if g := x.garbage(); g != tc.wantGarbage {
				t.Errorf("garbage = %q, want %q", g, tc.wantGarbage)
			}
			if body, _ := io.ReadAll(resp.Body); string(body) != tc.body {
				t.Errorf("the body left for the SDK is %q, want %q", body, tc.body)
			}
		})
	}
}

func TestStaleSession(t *testing.T) {
	refused := func(status int) *exchange { return &exchange{status: status} }
	transport := errors.New(`calling "tools/call": sending "tools/call": Bad Request`)
	for _, tc := range []struct {
		name string
		err  error
		x    *exchange
		want bool
	}{
		{"404: the session is missing", fmt.Errorf("x: %w", mcp.ErrSessionMissing), refused(404), true},
		{"400 before any JSON-RPC answer", transport, refused(400), true},
		{"410 gone", transport, refused(410), true},
		{"400 with a JSON-RPC error for the call", fmt.Errorf("x: %w", &jsonrpc.Error{Code: -32602, Message: "bad"}), refused(400), false},
		{"401 is about the token", transport, refused(401), false},
		{"500 may have run the call", transport, refused(500), false},
		{"a broken connection may have run the call", errors.New("connection reset"), refused(0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := staleSession(tc.err, tc.x); got != tc.want {
				t.Fatalf("staleSession = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCause_KeepsTheInnermost(t *testing.T) {
	long := errors.New(`connection closed: calling "initialize": client is closing: sending "server/discover": ` +
		strings.Repeat("very long step: ", 20) + "connection refused\nsecond line")
	got := cause(long)
	if !strings.HasSuffix(got, "connection refused") || len(got) > 200 || strings.Contains(got, "second line") {
		t.Fatalf("cause = %q", got)
	}
	if got := cause(errors.New("short: and clear")); got != "short: and clear" {
		t.Fatalf("a short message was changed: %q", got)
	}
}
