package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestParseToolCall(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		ok         bool
		id, tool   string
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w"}}}`, true, "1", "core_read"},
		{"string id re-encoded", `{"jsonrpc":"2.0","id":"\u0061b","method":"tools/call","params":{"name":"x"}}`, true, `"ab"`, "x"},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, false, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`, false, "", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}`, false, "", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x"}}`, false, "", ""},
		{"_meta goes to the SDK", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}`, false, "", ""},
		{"key case matters", `{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"x"}}`, false, "", ""},
		{"extra member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"},"x":1}`, false, "", ""},
		{"no name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, false, "", ""},
		{"old jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"x"}}`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call, ok := parseToolCall(parseMessage([]byte(tc.body)))
			if ok != tc.ok || (ok && (string(call.id) != tc.id || call.name != tc.tool)) {
				t.Fatalf("parseToolCall = %+v, %v; want id %s tool %s, %v", call, ok, tc.id, tc.tool, tc.ok)
			}
		})
	}
}

// TestEncodeResult checks that the direct path's one-pass encoding of a
// result is the JSON the SDK's encoder makes of the same result.
func TestEncodeResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"object output", outputResult(json.RawMessage(`{"a": [1, 2], "b": "<&>"}`))},
		{"wrapped output", outputResult(json.RawMessage(`"text with \"quotes\""`))},
		{"error", errorResult("Job failed: no \"x\"", "0x0123")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := encodeResult(json.RawMessage(`7`), tc.res)
			if !ok {
				t.Fatal("encodeResult declined a result of callTool's shape")
			}
			want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "result": tc.res})
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
				t.Fatalf("encodeResult = %s\nthe SDK encodes %s", got, want)
			}
		})
	}
	if _, ok := encodeResult(json.RawMessage(`1`), &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{}}}); ok {
		t.Fatal("encodeResult took a shape it does not write")
	}
}

func TestMisshapen(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		code       int
	}{
		{"request without method", `{"jsonrpc":"2.0","id":3}`, 400, -32600},
		{"params an array", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[1]}`, 200, -32602},
		{"params a string", `{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}`, 200, -32602},
		{"fine", `{"jsonrpc":"2.0","id":5,"method":"ping","params":null}`, 0, 0},
		{"a notification is never answered", `{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`, 0, 0},
		{"a response", `{"jsonrpc":"2.0","id":6,"result":{}}`, 0, 0},
		{"a batch is the SDK's", `[{"jsonrpc":"2.0","id":7}]`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			answered := misshapen(w, parseMessage([]byte(tc.body)))
			if answered != (tc.status != 0) {
				t.Fatalf("answered = %v, want %v", answered, tc.status != 0)
			}
			if !answered {
				return
			}
			var msg struct{ Error struct{ Code int } }
			if w.Code != tc.status || json.Unmarshal(w.Body.Bytes(), &msg) != nil || msg.Error.Code != tc.code {
				t.Fatalf("got %d %s, want %d code %d", w.Code, w.Body, tc.status, tc.code)
			}
		})
	}
}

func TestSessionless(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		header     []string
		answered   bool
	}{
		{"tools/list without a session", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, nil, true},
		{"an unknown method without a session", `{"jsonrpc":"2.0","id":"x","method":"bogus"}`, nil, true},
		{"with a session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Mcp-Session-Id", "S"}, false},
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil, false},
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, false},
		{"the sessionless protocol by header", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Mcp-Protocol-Version", "2026-07-28"}, false},
		{"an older protocol by header", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Mcp-Protocol-Version", "2025-11-25"}, true},
		{"the sessionless protocol by _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, nil, false},
		{"a batch is the SDK's", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://127.0.0.1:1/mcp", nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				r.Header.Set(tc.header[i], tc.header[i+1])
			}
			w := httptest.NewRecorder()
			if got := sessionless(w, r, parseMessage([]byte(tc.body))); got != tc.answered {
				t.Fatalf("answered = %v, want %v", got, tc.answered)
			}
			var msg struct {
				ID    json.RawMessage
				Error struct {
					Code    int
					Message string
				}
			}
			if tc.answered && (w.Code != 400 || json.Unmarshal(w.Body.Bytes(), &msg) != nil || msg.Error.Code != -32600 ||
				!strings.Contains(msg.Error.Message, "send initialize first") || string(msg.ID) == "null") {
				t.Fatalf("got %d %s, want 400, code -32600 saying to initialize, with the request's id", w.Code, w.Body)
			}
		})
	}
}

func TestPlainHeaders(t *testing.T) {
	base := func() *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1:1/mcp", nil)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		return r
	}
	for _, tc := range []struct {
		name   string
		change func(*http.Request)
		want   bool
	}{
		{"plain", func(*http.Request) {}, true},
		{"no protocol version", func(r *http.Request) { r.Header.Del("Mcp-Protocol-Version") }, false},
		{"new protocol version", func(r *http.Request) { r.Header.Set("Mcp-Protocol-Version", "2026-07-28") }, false},
		{"json only", func(r *http.Request) { r.Header.Set("Accept", "application/json") }, false},
		{"resumption", func(r *http.Request) { r.Header.Set("Last-Event-ID", "x_1") }, false},
		{"routing header", func(r *http.Request) { r.Header.Set("Mcp-Method", "tools/call") }, false},
		{"form", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base()
			tc.change(r)
			if got := plainHeaders(r); got != tc.want {
				t.Fatalf("plainHeaders = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzMessage feeds arbitrary bodies to what reads them before the SDK:
// nothing panics, and a body taken as a tool call has a usable id.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a"}}`,
		`{"jsonrpc":"2.0","id":3}`, `[1]`, `{"id":{}}`, `{"method":1,"params":[]}`, ``,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"clientInfo":{"name":1}}}`,
		`[{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"capabilities":{"roots":5}}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := parseMessage(body)
		misshapen(httptest.NewRecorder(), msg)
		if w := httptest.NewRecorder(); badInitialize(w, msg) && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("badInitialize answered %q", w.Body)
		}
		if w := httptest.NewRecorder(); batchedInitialize(w, body) && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("batchedInitialize answered %q", w.Body)
		}
		if call, ok := parseToolCall(msg); ok {
			if !json.Valid(call.id) || call.key == "" || call.name == "" {
				t.Fatalf("tool call %+v from %q", call, body)
			}
			out, ok := encodeResult(call.id, errorResult(call.name, ""))
			if !ok || !json.Valid(out) {
				t.Fatalf("encodeResult(%s) = %s", call.id, out)
			}
		}
	})
}
