package mcpserver

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
)

// sessions knows the SDK's live sessions, so that the direct path can
// answer tools/call on them, and closes idle ones. The SDK's own idle timer
// only sees requests that pass through the SDK, so it is off and this one,
// which sees every POST, replaces it.
type sessions struct {
	timeout time.Duration
	mu      sync.Mutex
	byID    map[string]*session
	perDID  map[string]int
}

// How many sessions are kept: each holds about 38 KB in the SDK and lives
// for the idle timeout, and an audit's loop of 60,000 initialize requests
// took the venue to 2.2 GB. Past a bound, the least recently used idle
// session (of the caller; past the total, of the caller holding the most)
// is closed: its client gets the spec's 404 and initializes again, where
// a refusal would lock everyone out for the timeout behind whoever filled
// the table.
const (
	maxSessions          = 4096
	maxSessionsPerCaller = 256
)

// session is one live SDK session: who opened it, whether the client has
// sent notifications/initialized, when it was last used and the request
// ids the direct path is answering.
type session struct {
	ss       *mcp.ServerSession
	did      string // whose sessions it counts among (maxSessionsPerCaller)
	user     string // who may use it (sessionUser)
	ready    atomic.Bool
	lastUse  atomic.Int64 // unix nanoseconds
	inflight atomic.Int32
	timer    *time.Timer

	mu    sync.Mutex
	calls map[string]*liveCall // request ids in flight on the direct path
	left  map[string]leftCall  // request ids whose calls ended before their jobs, for a late cancel
}

// liveCall is a call in flight on the direct path: what cancels it, and
// whether notifications/cancelled named it (it may come as the request
// ends, too late for the cancel to tell).
type liveCall struct {
	cancel    context.CancelCauseFunc
	cancelled bool
}

// leftCall is a job a call on the direct path left running when its
// request ended first, and until when a notifications/cancelled naming
// the call still cancels it.
type leftCall struct {
	job   venue.JobID
	until time.Time
}

// lateCancel is how long after its request ended a call's job can still be
// cancelled by notifications/cancelled. A client that gives up on a call
// ends its request and then notifies: the official Go SDK sends the
// notification in the background, for up to 5 s, after the request is
// gone. Ignored, each such cancel left a job running to its deadline
// (jobTimeout), holding one of its caller's workers: fifty cancelled calls
// of one client took every worker of the anonymous caller.
const lateCancel = 10 * time.Second

// maxLeftCalls bounds the jobs a session remembers for a late cancel; past
// it a call's job goes on uncancellable, as before there was any.
const maxLeftCalls = 256

func newSessions(timeout time.Duration) *sessions {
	return &sessions{timeout: timeout, byID: map[string]*session{}, perDID: map[string]int{}}
}

// add registers an SDK session at initialize; it forgets the session when
// the SDK closes it, for whatever reason.
func (r *sessions) add(ss *mcp.ServerSession, c venue.Caller) {
	did := c.DID
	id := ss.ID()
	if id == "" {
		return
	}
	r.mu.Lock()
	if r.byID[id] != nil {
		r.mu.Unlock()
		return
	}
	s := &session{ss: ss, did: did, user: sessionUser(c), calls: map[string]*liveCall{}}
	s.lastUse.Store(time.Now().UnixNano())
	r.byID[id] = s
	r.perDID[did]++
	s.timer = time.AfterFunc(r.timeout, func() { r.reap(s) })
	// An evicted session leaves the table here, not when the SDK has
	// closed it: until then the next initialize would pick the same one
	// again, and callers opening sessions at once (each under its own
	// bound, since a did:key costs nothing) took the table far past
	// maxSessions.
	var evict []*session
	if r.perDID[did] > maxSessionsPerCaller {
		if old := r.idlest(s, did); old != nil {
			r.forget(old)
			evict = append(evict, old)
		}
	}
	for len(r.byID) > maxSessions {
		// The idlest session of the caller holding the most: minting
		// identities costs nothing, and evicting anyone's idlest closed
		// the one session of a user who paused for a few seconds.
		old := r.idlest(s, r.largest())
		if old == nil {
			old = r.idlest(s, "")
		}
		if old == nil {
			break
		}
		r.forget(old)
		evict = append(evict, old)
	}
	r.mu.Unlock()
	for _, old := range evict {
		old.ss.Close()
	}
	go func() {
		ss.Wait()
		s.timer.Stop()
		r.mu.Lock()
		r.forget(s)
		r.mu.Unlock()
	}()
}

// forget takes s out of the table, if it is still there. Call with r.mu
// held.
func (r *sessions) forget(s *session) {
	id := s.ss.ID()
	if r.byID[id] != s {
		return
	}
	delete(r.byID, id)
	if r.perDID[s.did]--; r.perDID[s.did] <= 0 {
		delete(r.perDID, s.did)
	}
}

// idlest returns the least recently used session with no request under
// way, of caller did ("" for anyone's), other than keep; nil if there is
// none. Call with r.mu held.
func (r *sessions) idlest(keep *session, did string) *session {
	var old *session
	for _, s := range r.byID {
		if s == keep || (did != "" && s.did != did) || s.inflight.Load() > 0 {
			continue
		}
		if old == nil || s.lastUse.Load() < old.lastUse.Load() {
			old = s
		}
	}
	return old
}

// largest returns the caller holding the most sessions. Call with r.mu
// held.
func (r *sessions) largest() string {
	did, most := "", 0
	for d, n := range r.perDID {
		if n > most {
			did, most = d, n
		}
	}
	return did
}

// get returns the live session id, nil if there is none.
func (r *sessions) get(id string) *session {
	if id == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

// reap closes s if no request used it for the timeout, else looks again
// when the timeout would next run out.
func (r *sessions) reap(s *session) {
	idle := time.Since(time.Unix(0, s.lastUse.Load()))
	if s.inflight.Load() > 0 {
		s.timer.Reset(r.timeout)
		return
	}
	if idle < r.timeout {
		s.timer.Reset(r.timeout - idle)
		return
	}
	s.ss.Close()
}

// ownedBy reports whether r comes from the caller who opened s: only its
// requests keep it alive.
func (s *session) ownedBy(r *http.Request) bool {
	c, ok := venue.CallerFrom(r.Context())
	return ok && sessionUser(c) == s.user
}

// begin and end bracket a POST on the session; a session with a request
// under way is never idle.
func (s *session) begin() {
	s.inflight.Add(1)
	s.lastUse.Store(time.Now().UnixNano())
}

func (s *session) end() {
	s.lastUse.Store(time.Now().UnixNano())
	s.inflight.Add(-1)
}

// claim records a request id in flight on the direct path, with what
// cancels it; false if one with that id is already running, which
// JSON-RPC forbids.
func (s *session) claim(id string, cancel context.CancelCauseFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.calls[id]; dup {
		return false
	}
	s.calls[id] = &liveCall{cancel: cancel}
	delete(s.left, id) // the id names this call now, not the one that left its job
	return true
}

// cancel cancels the call in flight on the direct path with request id
// id (notifications/cancelled), and reports whether there was one.
func (s *session) cancel(id string) bool {
	s.mu.Lock()
	c := s.calls[id]
	if c != nil {
		c.cancelled = true
	}
	s.mu.Unlock()
	if c == nil {
		return false
	}
	c.cancel(errCallCancelled)
	return true
}

func (s *session) release(id string) {
	s.mu.Lock()
	delete(s.calls, id)
	s.mu.Unlock()
}

// leave remembers that the call with request id id left job running when
// its request ended, for a notifications/cancelled that arrives after. It
// reports whether one came already, as the request ended: the job is then
// to be cancelled now.
func (s *session) leave(id string, job venue.JobID, now time.Time) (cancelled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.calls[id]; c != nil && c.cancelled {
		return true
	}
	for k, l := range s.left {
		if now.After(l.until) {
			delete(s.left, k)
		}
	}
	if len(s.left) >= maxLeftCalls {
		return false
	}
	if s.left == nil {
		s.left = map[string]leftCall{}
	}
	s.left[id] = leftCall{job: job, until: now.Add(lateCancel)}
	return false
}

// takeLeft returns, once, the job the call with request id id left running
// if its request ended within lateCancel.
func (s *session) takeLeft(id string, now time.Time) (venue.JobID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.left[id]
	delete(s.left, id)
	return l.job, ok && !now.After(l.until)
}
