package agent

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// run is an agent's run loop in this process: it cycles (pick work, call
// the transition, apply its output) until no work is left.
type run struct {
	key    string
	id     string
	caller venue.Caller
	eng    *runtime.Engine
	done   chan struct{}

	// guarded by Agents.mu
	force bool // another cycle was asked for, work or not
	poke  bool // work arrived while running

	mu      sync.Mutex
	task    string                // the task in scope of the transition running now
	results map[string]taskResult // framework tool calls of this cycle
	last    json.RawMessage       // result of the last cycle, for trigger
	lastTR  map[string]taskResult
	err     error // why the loop stopped, if a transition failed
}

// taskResult is how a transition resolved a task.
type taskResult struct {
	Status string          `json:"status"`
	Output json.RawMessage `json:"output"`
}

// wake starts agent id's run loop unless it is running here already (then
// it is told to look again). With force a cycle runs even without work.
// It returns the run, or nil when the agent cannot start (not SLEEPING, or
// no work and no force).
func (a *Agents) wake(ctx context.Context, eng *runtime.Engine, id string, force bool) (*run, error) {
	c, _ := venue.CallerFrom(ctx)
	key := runKey(c.DID, id)
	a.mu.Lock()
	if r := a.runs[key]; r != nil {
		r.force, r.poke = r.force || force, true
		a.mu.Unlock()
		return r, nil
	}
	r := &run{key: key, id: id, caller: plainOwner(c), eng: eng, done: make(chan struct{}), force: force}
	a.runs[key] = r
	a.mu.Unlock()
	started, err := a.claim(ctx, eng, id, force)
	if err != nil || !started {
		a.release(r)
		return nil, err
	}
	go a.loop(r)
	return r, nil
}

// claim moves the agent from SLEEPING (or a stale RUNNING) to RUNNING.
func (a *Agents) claim(ctx context.Context, eng *runtime.Engine, id string, force bool) (bool, error) {
	started := false
	err := update(ctx, eng, id, func(r *record) (*record, error) {
		if r == nil {
			return nil, nil
		}
		stale := r.Status == Running && (a.cfg.SingleNode || a.ms()-r.Lease > a.cfg.LeaseTimeout.Milliseconds())
		if (r.Status != Sleeping && !stale) || (!force && !r.hasWork()) {
			return nil, nil
		}
		r.Status, r.Lease, r.Updated, started = Running, a.ms(), a.ms(), true
		return r, nil
	})
	return started, err
}

// release forgets a run and wakes whoever waits for it.
func (a *Agents) release(r *run) {
	a.mu.Lock()
	delete(a.runs, r.key)
	a.mu.Unlock()
	close(r.done)
}

// loop cycles until there is nothing to do. A failed cycle has already
// suspended the agent.
func (a *Agents) loop(r *run) {
	ctx := ownerCtx(r.caller)
	a.mu.Lock()
	force := r.force
	r.force, r.poke = false, false
	a.mu.Unlock()
	for {
		more, err := a.cycle(ctx, r, force)
		force = false
		if err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
		}
		if err == nil && more {
			continue
		}
		// Work or a trigger that arrived after the last look needs
		// another claim: the agent is SLEEPING again by now.
		a.mu.Lock()
		again, f := r.force || r.poke, r.force
		r.force, r.poke = false, false
		a.mu.Unlock()
		if err == nil && again {
			if ok, _ := a.claim(ctx, r.eng, r.id, f); ok {
				force = f
				continue
			}
		}
		a.release(r)
		return
	}
}

// work is what one cycle acts on.
type work struct {
	tasks []*task
	sid   string
	msgs  []envelope
}

// pick chooses the next work: the oldest task (with its session's pending
// messages), else the session whose oldest message waits longest.
func pick(rec *record) work {
	if ts := rec.orderedTasks(); len(ts) > 0 {
		t := ts[0]
		w := work{tasks: []*task{t}, sid: t.SessionID}
		if s := rec.Sessions[t.SessionID]; s != nil {
			w.msgs = s.Pending
		}
		return w
	}
	var w work
	oldest := int64(-1)
	for sid, s := range rec.Sessions {
		if len(s.Pending) > 0 && (oldest < 0 || s.Pending[0].Ts < oldest || (s.Pending[0].Ts == oldest && sid < w.sid)) {
			w, oldest = work{sid: sid, msgs: s.Pending}, s.Pending[0].Ts
		}
	}
	return w
}

// cycle runs one transition and reports whether to go on.
func (a *Agents) cycle(ctx context.Context, r *run, force bool) (bool, error) {
	rec, err := load(ctx, r.eng, r.id)
	if err != nil || rec == nil || rec.Status != Running {
		return false, err
	}
	w := pick(rec)
	if len(w.tasks) == 0 && len(w.msgs) == 0 && !force {
		return a.settle(ctx, r)
	}
	start := a.ms()
	in := transitionInput(r.id, rec, w, false)
	r.mu.Lock()
	r.results = map[string]taskResult{}
	if len(w.tasks) > 0 {
		r.task = w.tasks[0].JobID
	}
	r.mu.Unlock()
	out, jobID, err := callTransition(ctx, r.eng, agentCaller(r.caller, rec.Caps, rec.Config, a.ms()), opOf(rec.Config), in)
	r.mu.Lock()
	tool := r.results
	r.task, r.results = "", nil
	r.mu.Unlock()
	if err != nil {
		a.fail(ctx, r, w, err)
		return false, err
	}
	return a.commit(ctx, r, w, cycleOutcome{start: start, out: out, tool: tool, job: jobID, state: rec.State, op: opOf(rec.Config)})
}

// settle puts a RUNNING agent with no work back to SLEEPING; if work came
// in meanwhile it stays RUNNING and the loop goes on.
func (a *Agents) settle(ctx context.Context, r *run) (bool, error) {
	more := false
	err := update(ctx, r.eng, r.id, func(rec *record) (*record, error) {
		if rec == nil || rec.Status != Running {
			return nil, nil
		}
		if more = rec.hasWork(); more {
			return nil, nil
		}
		rec.Status, rec.Lease, rec.Updated = Sleeping, 0, a.ms()
		return rec, nil
	})
	return more, err
}

// fail suspends the agent after a failed transition: the error is
// recorded; tasks, sessions and pending messages stay as they were.
func (a *Agents) fail(ctx context.Context, r *run, w work, cause error) {
	msg := venue.ErrorMessage(cause)
	update(ctx, r.eng, r.id, func(rec *record) (*record, error) {
		if rec == nil || rec.Status == Terminated {
			return nil, nil
		}
		rec.Status, rec.Error, rec.Lease, rec.Updated = Suspended, &msg, 0, a.ms()
		return rec, nil
	})
	a.answerChat(r, w, outcome{err: venue.Errorf(venue.EINVALID, "Agent %s failed and is suspended: %s", r.id, msg)})
}

// callTransition invokes the transition operation as the agent (its owner
// confined to its caps) and waits for it to end; ctx carries the owner,
// who awaits the job.
func callTransition(ctx context.Context, eng *runtime.Engine, as venue.Caller, op string, in json.RawMessage) (json.RawMessage, venue.JobID, error) {
	rec, err := eng.Invoke(venue.WithCaller(ctx, as), runtime.InvokeRequest{Operation: op, Input: in, Wait: time.Minute})
	if err != nil {
		return nil, venue.JobID{}, err
	}
	for !rec.Status.Terminal() {
		if rec, err = eng.Await(ctx, rec.ID, time.Minute); err != nil {
			return nil, venue.JobID{}, err
		}
	}
	if rec.Status != venue.StatusComplete {
		return nil, rec.ID, venue.Errorf(venue.EINVALID, "Transition %s %s: %s", op, rec.Status, rec.Error)
	}
	return rec.Output, rec.ID, nil
}

// opOf returns the agent's transition operation.
func opOf(cfg map[string]any) string {
	if op, ok := cfg["operation"].(string); ok && op != "" {
		return op
	}
	return DefaultTransition
}

// DefaultTransition is the transition of an agent whose config names none.
const DefaultTransition = "v/ops/llmagent/chat"
