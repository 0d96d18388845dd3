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
			x := &exchange{secret: "sk-never-echoed"}
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

func TestClippedHiding(t *testing.T) {
	const tok = "sk-LEAK-1234567890"
	for _, tc := range []struct {
		name, s string
		n       int
		want    string
	}{
		{"whole, short", "Bearer " + tok + " refused", 100, "Bearer HIDDEN refused"},
		{"whole, cut after it", "Bearer " + tok + strings.Repeat("x", 50), 20, "Bearer HIDDENxxxxxxx…"},
		{"hidden before the cut", strings.Repeat("P", 10) + "Bearer " + tok + strings.Repeat("xyz", 20), 24, "PPPPPPPPPPBearer HIDDENx…"},
		{"cut after its first byte", strings.Repeat("P", 9) + "s" + "k-LEAK", 10, "PPPPPPPPP…"},
		{"a cut that only looks like its start", strings.Repeat("P", 8) + "sx" + tok, 10, "PPPPPPPPsx…"},
		{"no secret", "plain " + tok, 100, "plain " + tok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := tok
			if tc.name == "no secret" {
				secret = ""
			}
			if got := clippedHiding(tc.s, tc.n, secret); got != tc.want {
				t.Fatalf("clippedHiding(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
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

func TestHidingPieces(t *testing.T) {
	const tok = "ghp_LongTokenABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, tc := range []struct{ msg, want string }{
		{"value: ghp_LongTokenABCDEF...", "value: HIDDEN..."},
		{"tail …QRSTUVWXYZ here", "tail …HIDDEN here"},
		{"whole " + tok + " and a piece TokenABCD", "whole HIDDEN and a piece HIDDEN"},
		{"short runs stay: ghp_Lon, Token", "short runs stay: ghp_Lon, Token"},
		{"nothing of it", "nothing of it"},
	} {
		if got := hidingPieces(tc.msg, tok); got != tc.want {
			t.Errorf("hidingPieces(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := hidingPieces("abcdefgh", "abcdef"); got != "abcdefgh" {
		t.Errorf("a token shorter than a piece changed the message: %q", got)
	}
}
