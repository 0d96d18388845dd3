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
	"time"

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

// TestSession_LateCancel: a call whose request ended before its job keeps
// the job cancellable for lateCancel, once, and only under its own id.
func TestSession_LateCancel(t *testing.T) {
	job := venue.JobID{1, 2, 3}
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		setup func(s *session)
		id    string
		after time.Duration
		want  bool
	}{
		{"soon after", func(s *session) { s.leave("n1", job, at) }, "n1", time.Second, true},
		{"at the end of the grace", func(s *session) { s.leave("n1", job, at) }, "n1", lateCancel, true},
		{"past the grace", func(s *session) { s.leave("n1", job, at) }, "n1", lateCancel + time.Millisecond, false},
		{"another id", func(s *session) { s.leave("n1", job, at) }, "n2", time.Second, false},
		{"taken already", func(s *session) {
			s.leave("n1", job, at)
			s.takeLeft("n1", at)
		}, "n1", time.Second, false},
		{"the id reused by a new call", func(s *session) {
			s.leave("n1", job, at)
			s.claim("n1", func(error) {})
		}, "n1", time.Second, false},
		{"nothing left", func(*session) {}, "n1", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{calls: map[string]*liveCall{}}
			tc.setup(s)
			got, ok := s.takeLeft(tc.id, at.Add(tc.after))
			if ok != tc.want || (ok && got != job) {
				t.Fatalf("takeLeft = %s, %v; want %v", got, ok, tc.want)
			}
		})
	}
}

// TestSession_LateCancelBound: a client abandoning calls faster than they
// expire cannot grow a session without bound; expired ones make room.
func TestSession_LateCancelBound(t *testing.T) {
	s := &session{calls: map[string]*liveCall{}}
	at := time.Unix(1000, 0)
	for i := range 2 * maxLeftCalls {
		s.leave(fmt.Sprint(i), venue.JobID{1}, at)
	}
	if len(s.left) != maxLeftCalls {
		t.Fatalf("%d calls remembered, want %d", len(s.left), maxLeftCalls)
	}
	s.leave("late", venue.JobID{2}, at.Add(lateCancel+time.Second))
	if len(s.left) != 1 {
		t.Fatalf("%d calls remembered after the others expired, want 1", len(s.left))
	}
}

// TestSession_CancelAsTheRequestEnds: a notifications/cancelled that finds
// the call still claimed, as its request ends, is not lost: leave reports
// it, so the job is cancelled rather than left for a notification that
// already came.
func TestSession_CancelAsTheRequestEnds(t *testing.T) {
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		name   string
		cancel string // the id notifications/cancelled names, "" for none
		want   bool
	}{
		{"cancelled", "n1", true},
		{"another call cancelled", "n2", false},
		{"not cancelled", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{calls: map[string]*liveCall{}}
			s.claim("n1", func(error) {})
			s.claim("n2", func(error) {})
			if tc.cancel != "" && !s.cancel(tc.cancel) {
				t.Fatalf("cancel(%s) found no call", tc.cancel)
			}
			if got := s.leave("n1", venue.JobID{1}, at); got != tc.want {
				t.Fatalf("leave = %v, want %v", got, tc.want)
			}
			if _, ok := s.takeLeft("n1", at); ok == tc.want {
				t.Fatalf("takeLeft = %v: a job cancelled already is remembered, or one left is not", ok)
			}
		})
	}
}

// TestSessions_AShareIsACallerOfItsOwn: a UCAN sent as the bearer makes its
// holder act as its issuer, one DID, confined to the share. Sessions were
// keyed by the DID alone, so the holder could drive the issuer's sessions
// (and the issuer the holder's); each now keeps to who opened it.
func TestSessions_AShareIsACallerOfItsOwn(t *testing.T) {
	s := New(noEngine{}, Options{})
	as := func(r *http.Request, share string) *http.Request {
		c := venue.Caller{DID: "did:key:zbob"}
		if share != "" {
			c = c.Shared(share)
		}
		return r.WithContext(venue.WithCaller(r.Context(), c))
	}
	post := func(share, sid, body string) *httptest.ResponseRecorder {
		return postMCP(s, func(r *http.Request) *http.Request { return as(r, share) }, sid, body)
	}
	open := func(share string) string {
		sid := post(share, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`).Header().Get("Mcp-Session-Id")
		post(share, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return sid
	}
	issuers, holders := open(""), open("beef")
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, tc := range []struct {
		name, share, sid string
		status           int
	}{
		{"the issuer on its own session", "", issuers, 200},
		{"the holder on its own session", "beef", holders, 200},
		{"the holder on the issuer's", "beef", issuers, 403},
		{"the issuer on the holder's", "", holders, 403},
		{"another share's holder on the first's", "cafe", holders, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if w := post(tc.share, tc.sid, list); w.Code != tc.status {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, tc.status)
			}
		})
	}
}

// TestSessions_ReadyOnceInitializedIsAnswered: a session serves tools/call
// on the direct path as soon as the answer to its notifications/initialized
// is back. The SDK takes the notification in after answering 202, so a
// call sent at once went to its path, where notifications/cancelled cannot
// be told from a client gone away and the job went on (TestMCP_CancelledCall
// failed so on a busy machine).
func TestSessions_ReadyOnceInitializedIsAnswered(t *testing.T) {
	s := New(noEngine{}, Options{})
	post := func(sid, body string) *httptest.ResponseRecorder {
		return postMCP(s, func(r *http.Request) *http.Request {
			return r.WithContext(venue.WithCaller(r.Context(), venue.Caller{DID: "did:key:zready"}))
		}, sid, body)
	}
	for i := range 20 {
		sid := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`).Header().Get("Mcp-Session-Id")
		if w := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", w.Code, w.Body)
		}
		if sess := s.sessions.get(sid); sess == nil || !sess.ready.Load() {
			t.Fatalf("session %d not ready for the direct path once its initialized notification was answered", i)
		}
	}
}

// postMCP POSTs body to s on session sid (none if ""), as the caller that
// as puts in the request.
func postMCP(s *Server, as func(*http.Request) *http.Request, sid, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, as(r))
	return w
}
