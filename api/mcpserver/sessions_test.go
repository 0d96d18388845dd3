package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

var errNoEngine = errors.New("no engine")

type noEngine struct{}

func (noEngine) Invoke(context.Context, runtime.InvokeRequest) (*venue.Job, error) {
	return nil, errNoEngine
}
func (noEngine) Cancel(context.Context, venue.JobID) (*venue.Job, error) { return nil, errNoEngine }
func (noEngine) Operations() []*venue.Operation                          { return nil }
func (noEngine) Identity() runtime.Identity                              { return runtime.Identity{} }

// TestSessions_BoundHoldsAcrossCallers: callers each under their own bound
// (a did:key costs nothing to mint) cannot take the table past maxSessions,
// also when they initialize concurrently.
func TestSessions_BoundHoldsAcrossCallers(t *testing.T) {
	s := New(noEngine{}, Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := venue.WithCaller(r.Context(), venue.Caller{DID: "did:key:z" + r.Header.Get("X-Who")})
		s.ServeHTTP(w, r.WithContext(ctx))
	}))
	defer srv.Close()
	const callers, each = 40, maxSessionsPerCaller
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range callers * each {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("X-Who", fmt.Sprint(i%callers))
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	s.sessions.mu.Lock()
	n := len(s.sessions.byID)
	s.sessions.mu.Unlock()
	if n > maxSessions {
		t.Fatalf("%d sessions held after %d callers opened %d each, over the bound of %d", n, callers, each, maxSessions)
	}
}

// TestSessions_EvictionSparesTheFew: past maxSessions the session closed
// is the idlest of the caller holding the most, so that identities minted
// by the thousand do not close the one idle session of someone else.
func TestSessions_EvictionSparesTheFew(t *testing.T) {
	s := New(noEngine{}, Options{})
	open := func(who string) string {
		r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r = r.WithContext(venue.WithCaller(r.Context(), venue.Caller{DID: "did:key:z" + who}))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w.Header().Get("Mcp-Session-Id")
	}
	victim := open("victim")
	for i := range maxSessions + 64 {
		open(fmt.Sprint("minted", i%(maxSessions/maxSessionsPerCaller+4)))
	}
	if s.sessions.get(victim) == nil {
		t.Fatal("the one idle session of a caller was closed to make room for callers holding hundreds")
	}
	s.sessions.mu.Lock()
	n := len(s.sessions.byID)
	s.sessions.mu.Unlock()
	if n > maxSessions {
		t.Fatalf("%d sessions, over the bound of %d", n, maxSessions)
	}
}

// TestBadInitialize_Large: initialize's params are kept by the SDK for the
// life of the session, so params past maxInitializeParams are refused with
// 413 before the SDK decodes them, and no session is opened.
func TestBadInitialize_Large(t *testing.T) {
	s := New(noEngine{}, Options{})
	initialize := func(experimental string) *httptest.ResponseRecorder {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":` +
			experimental + `},"clientInfo":{"name":"t","version":"1"}}}`
		r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r = r.WithContext(venue.WithCaller(r.Context(), venue.Caller{DID: "did:key:zbig"}))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	big := `{"x":"` + strings.Repeat("a", maxInitializeParams) + `"}`
	if w := initialize(big); w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "over the venue's limit") ||
		w.Header().Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize with %d bytes of capabilities: %d %s (session %q)", len(big), w.Code, w.Body, w.Header().Get("Mcp-Session-Id"))
	}
	if w := initialize(`{"x":1}`); w.Code != http.StatusOK || w.Header().Get("Mcp-Session-Id") == "" {
		t.Fatalf("a small initialize: %d %s", w.Code, w.Body)
	}
}
