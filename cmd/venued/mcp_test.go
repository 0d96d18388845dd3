package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerTransport adds a bearer token to every request of an MCP client.
type bearerTransport struct{ token string }

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the official Go SDK client to the venue's /mcp,
// sending token (none for "") on every request.
func mcpSession(t *testing.T, m *Main, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "venue-test", Version: "0.0.1"}, nil)
	sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + m.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token}, Timeout: time.Minute}}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func toolNames(t *testing.T, sess *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		out[tool.Name] = tool
	}
	return out
}

func callTool(t *testing.T, sess *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCP_ToolsAreOperations lists the catalog as snake_case tools and runs
// tool calls through the engine: recorded as the caller's jobs, a failed
// job an isError result.
func TestMCP_ToolsAreOperations(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c, u := asUser(t, m)
		sess := mcpSession(t, m, c.token)
		tools := toolNames(t, sess)
		for _, want := range []string{"core_read", "core_write", "grid_job_result", "mcp_server_add", "mcp_tools_list", "schema_infer"} {
			if tools[want] == nil {
				t.Errorf("tools/list lacks %s", want)
			}
		}
		if tools["test_echo"] != nil {
			t.Error("the test operations are tools, though mcp.includePathPrefixes does not name them")
		}
		if in, _ := json.Marshal(tools["core_read"].InputSchema); !strings.Contains(string(in), `"path"`) {
			t.Errorf("core_read input schema %s lacks path", in)
		}

		res := callTool(t, sess, "core_write", map[string]any{"path": "w/mcp-note", "value": map[string]any{"n": 1}})
		if res.IsError {
			t.Fatalf("core_write failed: %s", resultText(res))
		}
		res = callTool(t, sess, "core_read", map[string]any{"path": "w/mcp-note"})
		st, _ := json.Marshal(res.StructuredContent)
		if res.IsError || !strings.Contains(string(st), `"value":{"n":1}`) {
			t.Fatalf("core_read = %s (isError %v)", st, res.IsError)
		}
		// The same value through REST: MCP and REST share one engine.
		r := c.do(t, "GET", "/api/v1/values/read?path=w/mcp-note", nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"n":1`) {
			t.Fatalf("REST read after MCP write: %d %s", r.status, r.body)
		}
		var ids []string
		c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
		if len(ids) != 2 {
			t.Fatalf("the caller has %d jobs after two tool calls, want 2", len(ids))
		}
		var rec map[string]any
		c.do(t, "GET", "/api/v1/jobs/"+ids[0], nil).json(t, &rec)
		if rec["caller"] != u.DID {
			t.Errorf("tool call recorded for %v, want %s", rec["caller"], u.DID)
		}

		res = callTool(t, sess, "core_copy", map[string]any{"from": "w/nothing-here", "to": "w/copy"})
		if !res.IsError || resultText(res) == "" {
			t.Fatalf("a failed job should be an isError result naming why, got %v %q", res.IsError, resultText(res))
		}
	})
}

// mcpPost sends one raw JSON-RPC body to /mcp.
func mcpPost(t *testing.T, c *client, session, body string) reply {
	t.Helper()
	h := []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-06-18"}
	if session != "" {
		h = append(h, "Mcp-Session-Id", session)
	}
	return c.do(t, "POST", "/mcp", body, h...)
}

// mcpInit opens a session by hand and returns its id.
func mcpInit(t *testing.T, c *client) string {
	t.Helper()
	r := mcpPost(t, c, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	mcpPost(t, c, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// TestMCP_BadInput sends what a broken or hostile client might: every case
// gets a JSON-RPC error or an isError result that says what to fix.
func TestMCP_BadInput(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	sid := mcpInit(t, c)
	for _, tc := range []struct{ name, body, want string }{
		{"malformed JSON", `{"jsonrpc":"2.0","id":2,`, `"code":-32700`},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"tools/explode"}`, `"code":-32601,"message":"Method not found: tools/explode"`},
		{"unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, `Unknown tool: no_such_tool`},
		{"arguments not an object", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"core_read","arguments":[1]}}`, `Tool arguments must be a JSON object`},
		{"wrong argument type", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"core_read","arguments":{"path":7}}}`, `"isError":true`},
		{"display name is sanitised", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"core:read","arguments":{"path":"w/none"}}}`, `\"exists\":false`},
		{"body not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"core_write\",\"arguments\":{\"path\":\"w/bad\",\"value\":\"a\xffb\"}}}", `"code":-32700,"message":"Parse error: the body is not UTF-8 text`},
		{"member given twice", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w"}},"params":{"name":"core_write","arguments":{"path":"w/dup","value":3}}}`, `"code":-32600,"message":"Invalid request: the member \"params\" is given more than once`},
		{"id given twice", `{"jsonrpc":"2.0","id":14,"id":15,"method":"ping"}`, `the member \"id\" is given more than once`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"error":{"code":-32600,"message":"Invalid request: 'id' must be a string or an integer"},"id":null`},
		{"initialize on a live session", `{"jsonrpc":"2.0","id":16,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, `{"error":{"code":-32600,"message":"Invalid request: this session is already initialized`},
		{"initialize spelled with an escape on a live session", `{"jsonrpc":"2.0","id":26,"method":"\u0069nitialize","params":{}}`, `{"error":{"code":-32600,"message":"Invalid request: this session is already initialized`},
		{"tools/call spelled with an escape and no name", `{"jsonrpc":"2.0","id":27,"method":"tools\/call","params":{}}`, `tools/call needs 'name'`},
		{"an unknown log level", `{"jsonrpc":"2.0","id":28,"method":"logging/setLevel","params":{"level":"verbose"}}`, `{"error":{"code":-32602,"message":"Invalid params: logging/setLevel needs 'level', one of debug, info, notice, warning, error, critical, alert, emergency"},"id":28`},
		{"no log level", `{"jsonrpc":"2.0","id":29,"method":"logging/setLevel","params":{}}`, `"code":-32602,"message":"Invalid params: logging/setLevel needs 'level'`},
		{"a log level", `{"jsonrpc":"2.0","id":30,"method":"logging/setLevel","params":{"level":"warning"}}`, `"id":30,"result":{}`},
		{"the session still works", `{"jsonrpc":"2.0","id":17,"method":"ping"}`, `"id":17,"result":{}`},
		{"id past 64 bits", `{"jsonrpc":"2.0","id":99999999999999999999999,"method":"ping"}`, `'id' must be a string or an integer`},
		{"a string for a body", `"ping"`, `{"error":{"code":-32600,"message":"Invalid request: the body must be a JSON-RPC message, an object, such as`},
		{"a number for a body", `42`, `"Invalid request: the body must be a JSON-RPC message, an object`},
		{"an empty batch on a session", `[ ]`, `"Invalid request: this session speaks MCP 2025-06-18, which has no batches`},
		{"a message with neither method nor result", `{"jsonrpc":"2.0"}`, `"Invalid request: the message has no method: a request or notification names one`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpPost(t, c, sid, tc.body)
			if !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("got %d %s, want it to contain %s", r.status, r.body, tc.want)
			}
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"initialize with params null", `{"jsonrpc":"2.0","id":18,"method":"initialize","params":null}`, `{"error":{"code":-32602,"message":"Invalid params: initialize needs params, an object;`},
		{"initialize without params", `{"jsonrpc":"2.0","id":19,"method":"initialize"}`, `"code":-32602,"message":"Invalid params: initialize needs params, an object;`},
		{"initialize with a number for the version", `{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":5}}`, `"code":-32602,"message":"Invalid params: params.protocolVersion must be a string;`},
		{"initialize with params an array", `{"jsonrpc":"2.0","id":22,"method":"initialize","params":[]}`, `"code":-32602,"message":"Invalid params: initialize needs params, an object;`},
		{"initialize with a capability of the wrong kind", `{"jsonrpc":"2.0","id":23,"method":"initialize","params":{"capabilities":{"roots":{"listChanged":"yes"}}}}`, `params.capabilities.roots.listChanged must be true or false`},
		{"initialize with an icon of the wrong kind", `{"jsonrpc":"2.0","id":24,"method":"initialize","params":{"clientInfo":{"name":"c","icons":[{"src":5}]}}}`, `params.clientInfo.icons.0.src must be a string`},
		{"initialize in a batch", `[{"jsonrpc":"2.0","id":25,"method":"initialize","params":{"clientInfo":5}}]`, `"code":-32600,"message":"Invalid request: initialize must be sent alone, not in a batch"`},
		{"initialize with a clientInfo name that is no string", `{"jsonrpc":"2.0","id":21,"method":"initialize","params":{"clientInfo":{"name":[]}}}`, `params.clientInfo.name must be a string`},
	} {
		t.Run(tc.name+" opens no session", func(t *testing.T) {
			r := mcpPost(t, c, "", tc.body)
			if r.status != 400 || !strings.Contains(string(r.body), tc.want) || r.header.Get("Mcp-Session-Id") != "" {
				t.Fatalf("got %d %v %s, want 400 without a session, containing %s", r.status, r.header, r.body, tc.want)
			}
		})
	}
	t.Run("an empty batch without a session", func(t *testing.T) {
		if r := mcpPost(t, c, "", `[ ]`); !strings.Contains(string(r.body), `"Invalid request: the batch is empty: send at least one message`) {
			t.Fatalf("got %d %s", r.status, r.body)
		}
	})
	t.Run("refused bodies wrote nothing", func(t *testing.T) {
		for _, path := range []string{"w/bad", "w/dup"} {
			if r := c.do(t, "GET", "/api/v1/values/read?path="+path, nil); !strings.Contains(string(r.body), `"exists":false`) {
				t.Fatalf("%s: %d %s, want nothing stored", path, r.status, r.body)
			}
		}
	})
	t.Run("wrong argument type says which", func(t *testing.T) {
		r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"core_read","arguments":{"path":7}}}`)
		if !strings.Contains(string(r.body), "Input schema violation") || !strings.Contains(string(r.body), "path") {
			t.Fatalf("got %s", r.body)
		}
	})
	t.Run("a request without a session says to initialize", func(t *testing.T) {
		r := mcpPost(t, c, "", `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{}}`)
		if r.status != 400 || !strings.Contains(string(r.body), `"code":-32600`) || !strings.Contains(string(r.body), "send initialize first") {
			t.Fatalf("got %d %s, want 400 with code -32600 saying to initialize first", r.status, r.body)
		}
	})
	t.Run("a bad token is 401 JSON", func(t *testing.T) {
		r := c.do(t, "POST", "/mcp", `{}`, "Authorization", "Bearer not-a-token", "Accept", "application/json, text/event-stream")
		if r.status != 401 || r.errorText(t) == "" {
			t.Fatalf("got %d %s", r.status, r.body)
		}
	})
	t.Run("another caller cannot use the session", func(t *testing.T) {
		other, _ := asUser(t, m)
		r := mcpPost(t, other, sid, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
		if r.status != http.StatusForbidden {
			t.Fatalf("got %d %s, want 403", r.status, r.body)
		}
	})
	t.Run("DELETE ends the session", func(t *testing.T) {
		if r := c.do(t, "DELETE", "/mcp", nil, "Mcp-Session-Id", sid); r.status >= 300 {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}
		if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","id":10,"method":"ping"}`); r.status != http.StatusNotFound {
			t.Fatalf("after DELETE: %d %s, want 404", r.status, r.body)
		}
	})
}

// TestMCP_Discovery serves the same description at both well-known paths,
// says whether a token is required, and names the endpoint as a proxy in
// front of the venue tells it (X-Forwarded-Proto and X-Forwarded-Host).
func TestMCP_Discovery(t *testing.T) {
	type doc struct {
		URL      string `json:"server_url"`
		Endpoint struct{ Path, Transport string }
		Auth     struct {
			Type     string
			Required bool
		} `json:"authentication"`
	}
	get := func(t *testing.T, c *client, path string, header ...string) doc {
		t.Helper()
		var d doc
		r := c.do(t, "GET", path, nil, header...)
		if r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		r.json(t, &d)
		return d
	}
	m := MustRunMain(t, "")
	c := newClient(m)
	for _, p := range []string{"/.well-known/mcp.json", "/.well-known/mcp"} {
		if d := get(t, c, p); d.URL != "http://"+m.Addr+"/mcp" || d.Endpoint.Transport != "streamable-http" || d.Auth.Required {
			t.Fatalf("GET %s: %+v", p, d)
		}
	}
	for _, tc := range []struct {
		name   string
		header []string
		want   string
	}{
		{"proxy with TLS", []string{"X-Forwarded-Proto", "https", "X-Forwarded-Host", "venue.example.com"}, "https://venue.example.com/mcp"},
		{"host with a port", []string{"X-Forwarded-Host", "venue.example.com:8443", "X-Forwarded-Proto", "https"}, "https://venue.example.com:8443/mcp"},
		{"first of a list", []string{"X-Forwarded-Proto", "https, http", "X-Forwarded-Host", "a.example, b.example"}, "https://a.example/mcp"},
		{"proto only", []string{"X-Forwarded-Proto", "https"}, "https://" + m.Addr + "/mcp"},
		{"a host that is not one is ignored", []string{"X-Forwarded-Host", "evil.example/phish?x=1"}, "http://" + m.Addr + "/mcp"},
		{"a scheme that is not http(s) is ignored", []string{"X-Forwarded-Proto", "javascript"}, "http://" + m.Addr + "/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := get(t, c, "/.well-known/mcp", tc.header...); d.URL != tc.want {
				t.Fatalf("server_url = %q, want %q", d.URL, tc.want)
			}
		})
	}

	t.Run("a venue that requires a token says so", func(t *testing.T) {
		m := MustRunMain(t, "", func(c *Config) { c.Auth.Anonymous = "none" })
		if d := get(t, newClient(m), "/.well-known/mcp.json"); !d.Auth.Required || d.Auth.Type != "bearer" {
			t.Fatalf("%+v", d)
		}
	})
	t.Run("forwarded headers can be ignored", func(t *testing.T) {
		off := false
		m := MustRunMain(t, "", func(c *Config) { c.MCP.TrustForwardedHeaders = &off })
		if d := get(t, newClient(m), "/.well-known/mcp", "X-Forwarded-Host", "venue.example.com"); d.URL != "http://"+m.Addr+"/mcp" {
			t.Fatalf("server_url = %q", d.URL)
		}
	})
}

// TestMCP_AJobAskingItsCaller: a tool call whose job asks for input ends
// at once with a tool error naming the job and how to answer it, not
// after the call's wait (a tool result cannot carry the answer).
func TestMCP_AJobAskingItsCaller(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.MCP.IncludePathPrefixes = []string{"v/ops/", "v/test/ops/"} })
	sess := mcpSession(t, m, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "test_ask", Arguments: map[string]any{"question": "which colour?"}})
	if err != nil {
		t.Fatalf("tools/call test_ask: %v (the call outlasted %v?)", err, 20*time.Second)
	}
	text := resultText(res)
	if !res.IsError || !strings.Contains(text, `The job is waiting for its caller (status INPUT_REQUIRED), asking: "which colour?". Job ID: 0x`) ||
		!strings.Contains(text, "answer with POST /api/v1/jobs/0x") {
		t.Fatalf("result %q (isError %v)", text, res.IsError)
	}
}

// TestMCP_UnknownMethods: an unknown request is answered -32601 with HTTP
// 200, as every other JSON-RPC error of a message the door read (a client
// takes a 400 for a transport failure); an unknown notification gets 202
// and no answer; a tools/list cursor the venue never handed out is -32602.
func TestMCP_UnknownMethods(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	sid := mcpInit(t, c)
	if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","id":9,"method":"foo/bar"}`); r.status != 200 || !strings.Contains(string(r.body), `"code":-32601,"message":"Method not found: foo/bar"`) {
		t.Fatalf("unknown method: %d %s", r.status, r.body)
	}
	if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"garbage!!"}}`); r.status != 200 || !strings.Contains(string(r.body), `"code":-32602,"message":"Invalid params: unknown cursor`) {
		t.Fatalf("tools/list with a cursor never handed out: %d %s", r.status, r.body)
	}
	if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","method":"notifications/foo"}`); r.status != 202 || len(strings.TrimSpace(string(r.body))) != 0 {
		t.Fatalf("unknown notification: %d %s", r.status, r.body)
	}
}

// TestMCP_SessionsAreBounded: one caller opening sessions without end
// (each holds about 38 KB for the idle timeout) has its least recently used
// idle one closed past the bound: its client gets the spec's 404 and
// initializes again, and the newest sessions keep working.
func TestMCP_SessionsAreBounded(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	first := mcpInit(t, c)
	var last string
	for range 256 {
		last = mcpInit(t, c)
	}
	if r := mcpPost(t, c, first, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != 404 || !strings.Contains(string(r.body), "Session not found") {
		t.Fatalf("the oldest of 257 sessions: %d %s", r.status, r.body)
	}
	if r := mcpPost(t, c, last, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != 200 {
		t.Fatalf("the newest session: %d %s", r.status, r.body)
	}
}

// TestMCP_Batches: a batch passes the door's checks message by message and
// holds at most 20; a session of 2025-06-18 or later, whose protocol has
// no batches, is refused one whatever its header says.
func TestMCP_Batches(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	old := func(session, body string) reply {
		h := []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-03-26"}
		if session != "" {
			h = append(h, "Mcp-Session-Id", session)
		}
		return c.do(t, "POST", "/mcp", body, h...)
	}
	r := old("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	old(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	pings := func(n int) string {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
		}
		return b.String() + "]"
	}
	for _, tc := range []struct{ name, body, want string }{
		{"a fractional id", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`, `message 2 of the batch: Invalid request: 'id' must be a string or an integer`},
		{"a bad log level", `[{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"bogus"}}]`, `message 1 of the batch: Invalid params: logging/setLevel needs 'level'`},
		{"a call naming no tool", `[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}]`, `message 1 of the batch: Invalid params: tools/call needs 'name'`},
		{"an id without a method", `[{"jsonrpc":"2.0","id":5}]`, `message 1 of the batch: Invalid request: the message has an id but no method`},
		{"too many", pings(21), `a batch holds at most 20 messages, this one 21`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := old(sid, tc.body); r.status != 400 || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("%d %s, want 400 saying %q", r.status, r.body, tc.want)
			}
		})
	}
	if r := old(sid, pings(2)); r.status != 200 || !strings.HasPrefix(strings.TrimSpace(string(r.body)), "[") {
		t.Fatalf("a batch of two pings: %d %s", r.status, r.body)
	}
	current := mcpInit(t, c)
	if r := c.do(t, "POST", "/mcp", pings(2), "Accept", "application/json, text/event-stream", "Mcp-Session-Id", current); r.status != 400 ||
		!strings.Contains(string(r.body), "this session speaks MCP 2025-06-18, which has no batches") {
		t.Fatalf("a batch on a 2025-06-18 session without the version header: %d %s", r.status, r.body)
	}
}

// TestMCP_CancelledCall: notifications/cancelled for a call in flight
// cancels its job (as the client asked) and ends the call at once.
func TestMCP_CancelledCall(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.MCP.IncludePathPrefixes = []string{"v/ops/", "v/test/ops/"} })
	c := newClient(m)
	sid := mcpInit(t, c)
	done := make(chan reply, 1)
	begun := time.Now()
	go func() {
		done <- mcpPost(t, c, sid, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"test_delay","arguments":{"ms":20000}}}`)
	}()
	time.Sleep(300 * time.Millisecond)
	if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user"}}`); r.status != 202 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	r := <-done
	if time.Since(begun) > 10*time.Second || !strings.Contains(string(r.body), "The tool call was cancelled; job") || !strings.Contains(string(r.body), "is CANCELLED") {
		t.Fatalf("the cancelled call, after %s: %d %s", time.Since(begun), r.status, r.body)
	}
}

// TestMCP_CancelledAfterItsRequest: a client that gives up on a call ends
// its request first and notifies after (the official Go SDK does so, in the
// background); the call's job is cancelled all the same. It went on to the
// job deadline, holding a worker: fifty such calls took every worker of
// their caller.
func TestMCP_CancelledAfterItsRequest(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.MCP.IncludePathPrefixes = []string{"v/ops/", "v/test/ops/"} })
	c := newClient(m)
	for _, tc := range []struct {
		name   string
		giveUp func(t *testing.T)
	}{
		{"the Go SDK's client, by its context", func(t *testing.T) {
			sess := mcpSession(t, m, "")
			ctx, cancel := context.WithTimeout(context.Background(), time.Second) // time for the call to reach the venue, however loaded
			defer cancel()
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "test_delay", Arguments: map[string]any{"ms": 30000}}); err == nil {
				t.Fatal("the call ended before its context")
			}
		}},
		{"a request closed, then the notification", func(t *testing.T) {
			sid := mcpInit(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", c.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_delay","arguments":{"ms":30000}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			req.Header.Set("Mcp-Session-Id", sid)
			if resp, err := c.http.Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("the call answered %d before its request was closed", resp.StatusCode)
			}
			time.Sleep(200 * time.Millisecond) // the venue has seen the request end
			if r := mcpPost(t, c, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"timeout"}}`); r.status != 202 {
				t.Fatalf("cancel: %d %s", r.status, r.body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before []string
			c.do(t, "GET", "/api/v1/jobs", nil).json(t, &before)
			tc.giveUp(t)
			var ids []string
			c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
			if len(ids) != len(before)+1 {
				t.Fatalf("%d jobs after the call, want %d", len(ids), len(before)+1)
			}
			var rec struct{ Status string }
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if c.do(t, "GET", "/api/v1/jobs/"+ids[len(ids)-1], nil).json(t, &rec); rec.Status == "CANCELLED" {
					return
				}
			}
			t.Fatalf("the job of the abandoned call is %s, want CANCELLED", rec.Status)
		})
	}
}
