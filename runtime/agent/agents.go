package agent

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Config tunes the agent engine. A zero value means the documented default.
type Config struct {
	// SingleNode says no other venue process shares the store, so an agent
	// found RUNNING with no run in this process is stale (left by a restart).
	SingleNode bool
	// LeaseTimeout is how old a RUNNING agent's run must be before another
	// node may take it over; default 15 minutes.
	LeaseTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Agents runs the agents of every owner. It holds only what is in flight
// (runs, waiting requests and chats); everything else is in the lattice.
type Agents struct {
	cfg     Config
	mu      sync.Mutex
	runs    map[string]*run         // owner + agent → the run in this process
	waiters map[string]chan outcome // owner + agent + task job id → the task job waiting here
	chats   map[string]*chatWait    // owner + agent + session → the chat in flight
	closing bool                    // the venue is shutting down: a run it stops is no failure
	closed  chan struct{}           // closed by Close: ends the sweep
}

// New returns an agent engine.
func New(cfg Config) *Agents {
	if cfg.LeaseTimeout <= 0 {
		cfg.LeaseTimeout = 15 * time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Agents{cfg: cfg, runs: map[string]*run{}, waiters: map[string]chan outcome{}, chats: map[string]*chatWait{}, closed: make(chan struct{})}
}

// outcome is how a task ended, for the request waiting on it.
type outcome struct {
	output json.RawMessage
	err    error
}

// chatWait is a chat waiting for the run that consumes its message.
type chatWait struct {
	msgID string
	ch    chan outcome
}

func (a *Agents) ms() int64 { return a.cfg.Now().UnixMilli() }

func runKey(owner, id string) string { return owner + "\x00" + id }

// chatKey names the chat in flight on session sid of agent id of owner.
func chatKey(owner, id, sid string) string { return runKey(runKey(owner, id), sid) }

// taskKey names the task job id of agent id of owner. A task is ended only
// through its own agent: a job id alone, from whatever record, reaches no
// other owner's or agent's task.
func taskKey(owner, id, job string) string { return runKey(runKey(owner, id), job) }

// newSessionID mints a hex id ordered by time, as job ids are.
func (a *Agents) newSessionID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(a.ms())<<16)
	rand.Read(b[8:])
	return hex.EncodeToString(b[:])
}

// gone, returned by an update function, removes the agent.
var gone = &record{}

// scope says what of an agent a load or update reads besides its small
// fields: which sessions (none, those named, or all) and whether the
// timeline. Most of what touches an agent touches one session at most,
// and an agent gathers a session for every request or message sent
// without a sessionId, and a timeline entry for every run (up to half the
// largest value): read whole each time, they made every step of an agent
// slower the more it had been used.
type scope struct {
	sessions []string
	timeline bool
	all      bool
}

// sessionScope is the scope of one session; none for "".
func sessionScope(sid string) scope { return scope{sessions: []string{sid}} }

// fold is the scope as a fold of agent id's tree.
func (sc scope) fold(id string) runtime.Fold {
	if sc.all {
		return runtime.Fold{}
	}
	base := "g/" + id + "/sessions"
	f := runtime.Fold{Path: base}
	for _, sid := range sc.sessions {
		if sid != "" && !slices.Contains(f.Keep, base+"/"+sid) {
			f.Keep = append(f.Keep, base+"/"+sid)
		}
	}
	if !sc.timeline {
		f.Skip = []string{"g/" + id + "/timeline"}
	}
	return f
}

// update changes agent id of the caller in ctx atomically, with the
// sessions of sc loaded: fn gets the record (nil if there is none) and
// returns the new one, nil to leave it, or gone to remove it.
func update(ctx context.Context, eng *runtime.Engine, id string, sc scope, fn func(r *record) (*record, error)) error {
	err := eng.UpdateTree(ctx, "g/"+id, sc.fold(id), func(t runtime.Tree) (map[string]json.RawMessage, error) {
		var r *record
		if t.Exists {
			var err error
			if r, err = decode(t, sc); err != nil {
				return nil, err
			}
		}
		next, err := fn(r)
		switch {
		case err != nil || next == nil:
			return nil, err
		case next == gone:
			return map[string]json.RawMessage{}, nil
		}
		return next.rows(), nil
	})
	if errors.Is(err, errNoInbox) {
		return update(ctx, eng, id, scope{all: true}, fn)
	}
	return err
}

// load reads agent id of the caller in ctx, with the sessions of sc; nil
// if there is none.
func load(ctx context.Context, eng *runtime.Engine, id string, sc scope) (*record, error) {
	t, err := eng.ReadTree(ctx, "g/"+id, sc.fold(id))
	if err != nil || !t.Exists {
		return nil, err
	}
	r, err := decode(t, sc)
	if errors.Is(err, errNoInbox) {
		return load(ctx, eng, id, scope{all: true})
	}
	return r, err
}

// live loads an agent that exists and is not TERMINATED.
func live(ctx context.Context, eng *runtime.Engine, id string, sc scope) (*record, error) {
	r, err := load(ctx, eng, id, sc)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Status == Terminated {
		return nil, notLive(id)
	}
	return r, nil
}

func notLive(id string) error {
	return venue.Errorf(venue.ENOTFOUND, "Agent not found or terminated: %s", id)
}

func notFound(id string) error { return venue.Errorf(venue.ENOTFOUND, "Agent not found: %s", id) }

// output marshals an operation's output.
func output(v any) (json.RawMessage, error) {
	return json.Marshal(v)
}

// parse decodes an operation's input into p.
func parse(in json.RawMessage, p any) error {
	if err := json.Unmarshal(in, p); err != nil {
		return venue.Errorf(venue.EINVALID, "Input does not fit the operation's schema: %v", err)
	}
	return nil
}

// ownerCtx is a context carrying the owner for work done outside a job
// (a run of the loop).
func ownerCtx(c venue.Caller) context.Context {
	return venue.WithCaller(context.Background(), c)
}

// running reports whether the agent whose run key is key has a run in
// this process.
func (a *Agents) running(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs[key] != nil
}

// endChats fails every chat waiting here on the agent whose run key is
// key: it was suspended or deleted, so none will be answered. With
// spareInFlight, a chat whose message the cycle in flight is consuming is
// spared: that cycle still commits (a suspension lets it) and answers.
func (a *Agents) endChats(key string, spareInFlight bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var busy map[string]bool
	if r := a.runs[key]; r != nil && spareInFlight {
		r.mu.Lock()
		busy = r.msgs
		r.mu.Unlock()
	}
	for k, cw := range a.chats {
		if strings.HasPrefix(k, key+"\x00") && !busy[cw.msgID] {
			select {
			case cw.ch <- outcome{err: err}:
			default:
			}
		}
	}
}

// endTask ends task job of agent id of owner (in ctx) with o: through the
// task job if it waits here, else in the store, where a restart left it
// open or another node holds it.
func (a *Agents) endTask(ctx context.Context, eng *runtime.Engine, owner, id, job string, o outcome) {
	a.mu.Lock()
	ch := a.waiters[taskKey(owner, id, job)]
	if ch != nil {
		// Sent under the lock, so the waiter, which leaves under it,
		// either takes this or is gone and the job is settled below.
		select {
		case ch <- o:
		default:
		}
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	jid, err := venue.ParseJobID(job)
	if err != nil {
		return
	}
	status, msg := venue.StatusComplete, ""
	if o.err != nil {
		status, msg = venue.StatusFailed, venue.ErrorMessage(o.err)
	}
	eng.Settle(ctx, jid, status, o.output, msg)
}

// taskOpen reports whether job is an open task job of agent id, of the
// owner in ctx. A job that has ended, or that is not that agent's task,
// is not; a store that cannot say now leaves the task be.
func (a *Agents) taskOpen(ctx context.Context, eng *runtime.Engine, id, job string) bool {
	jid, err := venue.ParseJobID(job)
	if err != nil {
		return false
	}
	rec, err := eng.Job(ctx, jid)
	if err != nil {
		return venue.ErrorCode(err) != venue.ENOTFOUND
	}
	var in struct {
		AgentID string `json:"agentId"`
	}
	json.Unmarshal(rec.Input, &in)
	return !rec.Status.Terminal() && rec.Name == "agent:task" && in.AgentID == id
}
