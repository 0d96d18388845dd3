package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestMCPGolden pins the MCP exchanges byte for byte: initialize,
// tools/list, tools/call (results and isError) and the JSON-RPC errors, as
// transcripts in testdata/mcp, rewritten with -update. Volatile values
// (session and job ids, DIDs, ports, times) are normalised. Each tools/call
// is also sent the way the SDK path takes it (no protocol version header),
// and must get the same answer as on the direct path.
func TestMCPGolden(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) {
		c.MaxBodyBytes = 4096
		c.MCP.IncludePathPrefixes = []string{"v/ops/", "v/test/ops/"} // test_value returns what it is given
	})
	c := newClient(m)
	g := &transcript{t: t, c: c}

	init := g.post("initialize", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`)
	g.sid = init.header.Get("Mcp-Session-Id")
	if g.sid == "" {
		t.Fatalf("initialize: %d %s", init.status, init.body)
	}
	g.post("initialized notification", g.sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	g.post("ping", g.sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	g.check("initialize")

	g.filter = keepTools("core_read", "grid_job_status")
	g.post("tools/list (two of the tools kept)", g.sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	g.filter = nil
	g.check("tools-list")

	for _, tc := range []struct{ name, body string }{
		{"success", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"core_write","arguments":{"path":"w/golden","value":{"greeting":"hello <world> & all"}}}}`},
		{"success, string id", `{"jsonrpc":"2.0","id":"five","method":"tools/call","params":{"name":"core_read","arguments":{"path":"w/golden/greeting"}}}`},
		{"success, a string output wrapped", `{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"test_value","arguments":{"value":"just a string"}}}`},
		{"success, an array output wrapped", `{"jsonrpc":"2.0","id":52,"method":"tools/call","params":{"name":"test_value","arguments":{"value":[1,"two",null]}}}`},
		{"success, a null output wrapped", `{"jsonrpc":"2.0","id":53,"method":"tools/call","params":{"name":"test_value","arguments":{}}}`},
		{"isError: input schema violation", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"core_read","arguments":{"path":7}}}`},
		{"isError: the job failed", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"grid_job_status","arguments":{"id":"not-a-job"}}}`},
	} {
		r := g.post("tools/call "+tc.name, g.sid, tc.body)
		viaSDK := g.c.do(t, "POST", "/mcp", tc.body, "Accept", "application/json, text/event-stream", "Mcp-Session-Id", g.sid)
		if !sameJSON(t, normalise(string(r.body), g.sid), normalise(string(viaSDK.body), g.sid)) {
			t.Errorf("tools/call %s: the direct path answered\n%s\nthe SDK path\n%s", tc.name, r.body, viaSDK.body)
		}
	}
	g.check("tools-call")

	for _, tc := range []struct{ name, body string }{
		{"parse error", `{"jsonrpc":"2.0","id":8,`},
		{"method not found", `{"jsonrpc":"2.0","id":9,"method":"tools/explode"}`},
		{"missing method", `{"jsonrpc":"2.0","id":10}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`},
		{"arguments not an object", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"core_read","arguments":[1]}}`},
		{"params not an object", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":[1]}`},
	} {
		g.post(tc.name, g.sid, tc.body)
	}
	g.post("unknown session", "not-a-session", `{"jsonrpc":"2.0","id":14,"method":"ping"}`)
	for _, tc := range []struct{ name, body string }{
		{"tool name not a string", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":5,"arguments":{}}}`},
		{"tool name missing", `{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{}}`},
		{"tool name empty", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"","arguments":{}}}`},
		{"id an object", `{"jsonrpc":"2.0","id":{"n":18},"method":"ping"}`},
		{"id a boolean", `{"jsonrpc":"2.0","id":true,"method":"ping"}`},
		{"body over maxBodyBytes", `{"jsonrpc":"2.0","id":19,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`},
	} {
		g.post(tc.name, g.sid, tc.body)
	}
	g.headers = []string{"Accept", "application/json"}
	g.post("Accept without text/event-stream: answered in JSON, as the reference does", g.sid, `{"jsonrpc":"2.0","id":20,"method":"ping"}`)
	g.headers = []string{"Accept", "text/event-stream"}
	g.post("Accept with text/event-stream only: the answer as one SSE message, as the reference does", g.sid, `{"jsonrpc":"2.0","id":24,"method":"ping"}`)
	g.headers = []string{"Accept", "text/event-stream", "Mcp-Protocol-Version", "2025-11-25"}
	g.post("Accept with text/event-stream only, a tools/call", g.sid, `{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w/golden/greeting"}}}`)
	g.post("Accept with text/event-stream only, an error", g.sid, `{"jsonrpc":"2.0","id":26,"method":"tools/explode"}`)
	g.headers = []string{"Accept", "text/html"}
	g.post("Accept with neither", g.sid, `{"jsonrpc":"2.0","id":23,"method":"ping"}`)
	g.headers = []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "1999-01-01"}
	g.post("unsupported protocol version", g.sid, `{"jsonrpc":"2.0","id":21,"method":"ping"}`)
	g.headers = nil
	other, _ := asUser(t, m)
	g.c = other
	g.post("another caller's session", g.sid, `{"jsonrpc":"2.0","id":22,"method":"ping"}`)
	g.c = c
	g.check("errors")
}

// transcript collects exchanges with /mcp as text.
type transcript struct {
	t       *testing.T
	c       *client
	sid     string
	filter  func([]byte) []byte // rewrites a response body before it is recorded
	headers []string            // headers sent instead of the usual Accept and Mcp-Protocol-Version
	buf     bytes.Buffer
}

// post sends body on session sid ("" for none) with the headers a client
// sends after initialize, and records the exchange under title.
func (g *transcript) post(title, sid, body string) reply {
	g.t.Helper()
	h := []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-11-25"}
	if g.headers != nil {
		h = append([]string(nil), g.headers...)
	}
	if sid != "" {
		h = append(h, "Mcp-Session-Id", sid)
	}
	r := g.c.do(g.t, "POST", "/mcp", body, h...)
	fmt.Fprintf(&g.buf, "### %s\n> POST /mcp\n", title)
	for i := 0; i+1 < len(h); i += 2 {
		fmt.Fprintf(&g.buf, "> %s: %s\n", h[i], h[i+1])
	}
	shown := body
	if len(shown) > 300 {
		shown = fmt.Sprintf("%s… (%d bytes)", shown[:80], len(body))
	}
	fmt.Fprintf(&g.buf, "%s\n\n< %d\n", shown, r.status)
	for _, k := range []string{"Content-Type", "Mcp-Session-Id"} {
		if v := r.header.Get(k); v != "" {
			fmt.Fprintf(&g.buf, "< %s: %s\n", k, v)
		}
	}
	out := r.body
	if g.filter != nil {
		out = g.filter(out)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, out, "", "  ") == nil {
		out = pretty.Bytes()
	}
	fmt.Fprintf(&g.buf, "%s\n\n", bytes.TrimSpace(out))
	return r
}

// check compares what was recorded with testdata/mcp/<name>.txt, or
// rewrites that file with -update, and starts a new transcript.
func (g *transcript) check(name string) {
	g.t.Helper()
	got := []byte(normalise(g.buf.String(), g.sid))
	g.buf.Reset()
	golden := filepath.Join("testdata", "mcp", name+".txt")
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			g.t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		g.t.Fatalf("%v (run go test ./cmd/venued -run TestMCPGolden -update)", err)
	}
	if !bytes.Equal(want, got) {
		g.t.Errorf("the MCP exchange %s changed; if that was intended, run go test ./cmd/venued -run TestMCPGolden -update and commit %s\n--- got:\n%s", name, golden, got)
	}
}

// volatile matches what differs between runs: job ids, DIDs, loopback
// ports, times.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`0x[0-9a-f]{32}`), "<job-id>"},
	{regexp.MustCompile(`did:key:z[1-9A-HJ-NP-Za-km-z]+`), "did:key:<key>"},
	{regexp.MustCompile(`127\.0\.0\.1(%3A|:)[0-9]+`), "127.0.0.1${1}<port>"},
	{regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z`), "<time>"},
}

func normalise(s, sid string) string {
	if sid != "" {
		s = strings.ReplaceAll(s, sid, "<session-id>")
	}
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// keepTools returns a filter of a tools/list answer that keeps the named
// tools only, so that the transcript does not change with every new
// operation of the catalog.
func keepTools(names ...string) func([]byte) []byte {
	return func(body []byte) []byte {
		var msg map[string]json.RawMessage
		var res map[string]json.RawMessage
		var tools []json.RawMessage
		if json.Unmarshal(body, &msg) != nil || json.Unmarshal(msg["result"], &res) != nil || json.Unmarshal(res["tools"], &tools) != nil {
			return body
		}
		var kept []json.RawMessage
		for _, tool := range tools {
			var n struct{ Name string }
			json.Unmarshal(tool, &n)
			for _, want := range names {
				if n.Name == want {
					kept = append(kept, tool)
				}
			}
		}
		res["tools"], _ = json.Marshal(kept)
		msg["result"], _ = json.Marshal(res)
		out, _ := json.Marshal(msg)
		return out
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return reflect.DeepEqual(x, y)
}
