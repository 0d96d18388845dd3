package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestKeepAlive: an idle event stream gets comments, only between events,
// and nothing is written once its handler returns.
func TestKeepAlive(t *testing.T) {
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/mcp", nil)
	withKeepAlive(rec, r, 5*time.Millisecond, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		time.Sleep(30 * time.Millisecond) // idle before the first event
		w.Write([]byte("event: message\n"))
		time.Sleep(30 * time.Millisecond) // an event half written
		w.Write([]byte("data: {}\n\n"))
		time.Sleep(30 * time.Millisecond)
	})
	out := rec.Body.String()
	if !strings.Contains(out, "event: message\ndata: {}\n\n") {
		t.Fatalf("a comment inside an event: %q", out)
	}
	before, after, _ := strings.Cut(out, "event: message\ndata: {}\n\n")
	if !strings.HasPrefix(before, ": keepalive\n\n") || !strings.HasPrefix(after, ": keepalive\n\n") {
		t.Fatalf("no comments while idle: %q", out)
	}
	n := len(out)
	time.Sleep(20 * time.Millisecond)
	if rec.Body.Len() != n {
		t.Fatal("written after the handler returned")
	}
}

// TestKeepAliveNotOnRefusals: an answer that is no event stream gets none.
func TestKeepAliveNotOnRefusals(t *testing.T) {
	rec := httptest.NewRecorder()
	withKeepAlive(rec, httptest.NewRequest("GET", "/mcp", nil), 5*time.Millisecond, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		time.Sleep(30 * time.Millisecond)
		w.Write([]byte(`{}`))
	})
	if rec.Body.String() != `{}` {
		t.Fatalf("%q", rec.Body.String())
	}
}
