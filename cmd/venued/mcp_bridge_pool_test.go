package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// poolVendor is a remote MCP server on loopback that can be restarted on
// the same address. It accepts several bearer tokens, counts initialize
// requests, and counts calls whose token differs from the one their
// session was opened with. With badRequest set it answers a session it
// does not know as the TypeScript SDK's servers do (server-everything
// among them): HTTP 400 with a JSON-RPC error without an id, not 404.
type poolVendor struct {
	t          *testing.T
	addr       string
	tokens     map[string]bool
	badRequest atomic.Bool
	inits      atomic.Int32
	foreign    atomic.Int32 // calls made on a session with another token than its own
	srv        *http.Server
}

func (v *poolVendor) start() {
	v.t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "vendor", Version: "1"}, nil)
	var mu sync.Mutex
	owner := map[string]string{} // session id → its token
	known := map[string]bool{}   // session ids this run of the server handed out
	type echoIn struct {
		Message string `json:"message"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, map[string]string, error) {
		tok, sid := req.Extra.Header.Get("Authorization"), req.Session.ID()
		mu.Lock()
		if first, ok := owner[sid]; !ok {
			owner[sid] = tok
		} else if first != tok {
			v.foreign.Add(1)
		}
		mu.Unlock()
		return nil, map[string]string{"echo": in.Message}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ln, err := net.Listen("tcp", v.addr)
	if err != nil {
		v.t.Fatal(err)
	}
	v.addr = ln.Addr().String()
	v.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !v.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")] {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"method":"initialize"`)) {
			v.inits.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if sid := r.Header.Get("Mcp-Session-Id"); v.badRequest.Load() && sid != "" && !known[sid] {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}`))
			return
		}
		h.ServeHTTP(sessionsSeen{w, known, &mu}, r)
	})}
	go v.srv.Serve(ln)
	v.t.Cleanup(func() { v.srv.Close() })
}

// sessionsSeen notes the session ids a server hands out.
type sessionsSeen struct {
	http.ResponseWriter
	known map[string]bool
	mu    *sync.Mutex
}

func (w sessionsSeen) WriteHeader(code int) {
	w.note()
	w.ResponseWriter.WriteHeader(code)
}

func (w sessionsSeen) Write(p []byte) (int, error) {
	w.note()
	return w.ResponseWriter.Write(p)
}

func (w sessionsSeen) note() {
	if sid := w.Header().Get("Mcp-Session-Id"); sid != "" {
		w.mu.Lock()
		w.known[sid] = true
		w.mu.Unlock()
	}
}

func (w sessionsSeen) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// restart stops the server, forgetting its sessions, and starts a new one
// on the same address.
func (v *poolVendor) restart() {
	v.srv.Close()
	v.start()
}

// TestMCPBridge_SessionPool: bridged calls reuse an open client session
// instead of initializing one per call, per caller and token, and recover
// when the remote server restarts and no longer knows the session.
func TestMCPBridge_SessionPool(t *testing.T) {
	v := &poolVendor{t: t, addr: "127.0.0.1:0", tokens: map[string]bool{"tok-alice": true, "tok-bob": true}}
	v.start()
	url := "http://" + v.addr + "/mcp"
	m := MustRunMain(t, "", allowLoopback)
	alice, _ := asUser(t, m)
	bob, _ := asUser(t, m)
	for c, tok := range map[*client]string{alice: "tok-alice", bob: "tok-bob"} {
		if r := c.do(t, "PUT", "/api/v1/secrets/VENDOR", `{"value":"`+tok+`"}`); r.status != 200 {
			t.Fatalf("put secret: %d %s", r.status, r.body)
		}
		if rec := jobOf(t, c, "v/ops/mcp/server/add", map[string]any{"name": "vendor", "url": url, "auth": "s/VENDOR"}); rec["status"] != "COMPLETE" {
			t.Fatalf("server/add: %v", rec["error"])
		}
	}
	echo := func(t *testing.T, c *client, msg string) {
		t.Helper()
		rec := jobOf(t, c, "o/mcp/vendor/echo", map[string]any{"message": msg})
		if rec["status"] != "COMPLETE" {
			t.Fatalf("bridged echo %s: %v", msg, rec["error"])
		}
	}

	t.Run("calls reuse a session per caller", func(t *testing.T) {
		before := v.inits.Load()
		for i := range 5 {
			echo(t, alice, "a"+string(rune('0'+i)))
			echo(t, bob, "b"+string(rune('0'+i)))
		}
		if got := v.inits.Load() - before; got != 2 {
			t.Fatalf("10 calls by two callers initialized %d sessions, want 2", got)
		}
		if n := v.foreign.Load(); n != 0 {
			t.Fatalf("%d calls ran on a session opened with another caller's token", n)
		}
	})
	t.Run("a restarted server gets new sessions", func(t *testing.T) {
		v.restart()
		// As across a real restart, the venue's HTTP client sees the old
		// connections closed before the next call; a call already written
		// to a connection that then breaks is not retried, since the server
		// may have run it.
		time.Sleep(200 * time.Millisecond)
		before := v.inits.Load()
		echo(t, alice, "after restart")
		echo(t, bob, "after restart")
		echo(t, alice, "again")
		if got := v.inits.Load() - before; got != 2 {
			t.Fatalf("after the restart, 3 calls initialized %d sessions, want 2", got)
		}
		if n := v.foreign.Load(); n != 0 {
			t.Fatalf("%d calls ran on a session opened with another caller's token", n)
		}
	})
	t.Run("a restarted server answering 400 gets new sessions", func(t *testing.T) {
		v.badRequest.Store(true)
		defer v.badRequest.Store(false)
		v.restart()
		time.Sleep(200 * time.Millisecond)
		before := v.inits.Load()
		echo(t, alice, "after a 400")
		echo(t, bob, "after a 400")
		echo(t, alice, "again")
		if got := v.inits.Load() - before; got != 2 {
			t.Fatalf("after the restart, 3 calls initialized %d sessions, want 2", got)
		}
	})
}
