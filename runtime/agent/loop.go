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

	// owned by the loop's goroutine
	gen   string          // the generation of the agent claimed
	lease int64           // the lease of the last claim or renewal, which a resume during the run keeps
	freed bool            // the run's last write ended its lease: nothing to retire
	taken bool            // another node took the agent's lease: its run goes on there, and notes it
	tried map[string]bool // tasks (by job id) a cycle left queued: not picked again by this run

	mu      sync.Mutex
	task    string                // the task in scope of the transition running now
	msgs    map[string]bool       // ids of the messages the transition running now consumes
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
	r := &run{key: key, id: id, caller: plainOwner(c), eng: eng, done: make(chan struct{}), force: force, tried: map[string]bool{}}
	a.runs[key] = r
	a.mu.Unlock()
	gen, lease, started, err := a.claim(ctx, eng, id, force)
	if err != nil || !started {
		a.release(r)
		return nil, err
	}
	r.gen, r.lease = gen, lease
	a.note(eng, r.caller.DID, id, true)
	go a.loop(r)
	return r, nil
}

// stale reports whether r is RUNNING with no run to show for it: left by
// a restart, or by a node that died.
// Call with a.mu not held.
func (a *Agents) stale(owner, id string, r *record) bool {
	return r.Status == Running && !a.busy(owner, id, r)
}

// busy reports whether a run of the agent may still commit into r: it
// holds a lease (RUNNING, or suspended while its cycle finishes) and a run
// in this process shows for it or, on a shared store, the lease is fresh
// enough to be another node's. On a single-node store a lease without a
// run here was left by a restart.
// Call with a.mu not held.
func (a *Agents) busy(owner, id string, r *record) bool {
	if r.Lease == 0 && r.Status != Running {
		return false
	}
	a.mu.Lock()
	here := a.runs[runKey(owner, id)]
	a.mu.Unlock()
	return here != nil || a.othersMayRun(r)
}

// othersMayRun reports whether r's lease may be another node's run: on a
// shared store, until the lease is LeaseTimeout old.
func (a *Agents) othersMayRun(r *record) bool {
	return !a.cfg.SingleNode && a.ms()-r.Lease <= a.cfg.LeaseTimeout.Milliseconds()
}

// claim moves the agent from SLEEPING (or a stale RUNNING) to RUNNING and
// returns its generation. The run asking has registered itself, so a
// RUNNING agent is stale unless its lease says another node may run it.
func (a *Agents) claim(ctx context.Context, eng *runtime.Engine, id string, force bool) (string, int64, bool, error) {
	started, gen, lease := false, "", int64(0)
	err := update(ctx, eng, id, scope{}, func(r *record) (*record, error) {
		if r == nil {
			return nil, nil
		}
		stale := r.Status == Running && !a.othersMayRun(r)
		if (r.Status != Sleeping && !stale) || (!force && !r.hasWork()) {
			return nil, nil
		}
		r.Status, r.Lease, r.Updated, started, gen = Running, a.ms(), a.ms(), true, r.Gen
		r.Interrupted, lease = false, r.Lease
		return r, nil
	})
	return gen, lease, started, err
}

// renew keeps a run's lease fresh on a shared store: a run cycles on for
// as long as work comes, and a lease as old as its claim would read as
// stale to another node (LeaseTimeout), which would then run the agent
// beside it. It renews once a third of LeaseTimeout has passed, and
// reports false if the lease is no longer the run's.
func (a *Agents) renew(ctx context.Context, r *run) (bool, error) {
	if a.ms()-r.lease < a.cfg.LeaseTimeout.Milliseconds()/3 {
		return true, nil
	}
	ours, lease := false, a.ms()
	if lease <= r.lease {
		lease = r.lease + 1
	}
	err := update(ctx, r.eng, r.id, scope{}, func(rec *record) (*record, error) {
		// Suspended with the run's lease is a cycle still in flight, as
		// busy reads it: its lease stays fresh until the cycle ends.
		ours = rec != nil && rec.Gen == r.gen && (rec.Status == Running || rec.Status == Suspended) && rec.Lease == r.lease
		if !ours {
			return nil, nil
		}
		rec.Lease = lease
		return rec, nil
	})
	if err != nil || !ours {
		return false, err
	}
	r.lease = lease
	return true, nil
}

// keepLease renews r's lease while one cycle's transition runs, which may
// take longer than LeaseTimeout (a transition's job waits for input, is
// paused, waits for a worker, or runs under a jobTimeout past the lease):
// renewed only between cycles, the lease of a live run read as stale to
// another node's sweep, which ran the cycle's work a second time. The
// returned stop ends the renewals and waits for them, so the loop's
// goroutine owns r.lease again once it returns.
func (a *Agents) keepLease(ctx context.Context, r *run) (stop func()) {
	if a.cfg.SingleNode {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(a.cfg.LeaseTimeout / 4)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if ok, err := a.renew(ctx, r); err == nil && !ok {
					return // no longer this run's lease
				}
			}
		}
	}()
	return func() { close(quit); <-done }
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
	defer func() {
		// Closing, the note is how the restart finds the agent; taken over,
		// it is the other node's, which its sweep finds if that node dies.
		if !a.isClosing() && !r.taken {
			a.note(r.eng, r.caller.DID, r.id, false)
		}
	}()
	a.mu.Lock()
	force := r.force
	r.force, r.poke = false, false
	a.mu.Unlock()
	for {
		if a.isClosing() {
			a.stopForClose(ctx, r)
			return
		}
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
			if gen, lease, ok, _ := a.claim(ctx, r.eng, r.id, f); ok && gen == r.gen {
				force, r.lease, r.freed = f, lease, false
				continue
			}
		}
		if !r.freed && a.retire(ctx, r) {
			continue // resumed while its cycle finished: the run goes on
		}
		if a.releaseIdle(r) {
			return
		}
		// woken after the last look: claim again
	}
}

// retire ends the run's lease on an agent no longer RUNNING (suspended
// while its cycle ran), so that it no longer reads as busy. It reports
// whether the agent is RUNNING under this run's lease after all: resumed
// while the cycle ran, which gives the run back its agent.
func (a *Agents) retire(ctx context.Context, r *run) bool {
	ours := false
	update(ctx, r.eng, r.id, scope{}, func(rec *record) (*record, error) {
		switch {
		case rec == nil || rec.Gen != r.gen || rec.Lease != r.lease:
			return nil, nil
		case rec.Status == Running:
			ours = true
			return nil, nil
		}
		rec.Lease = 0
		return rec, nil
	})
	return ours
}

// releaseIdle forgets the run unless a wake came since its last look, in
// which case the loop claims again: a wake that finds the run registered
// only pokes it, and would otherwise be lost. It reports whether it
// released the run.
func (a *Agents) releaseIdle(r *run) bool {
	a.mu.Lock()
	if r.poke || r.force {
		a.mu.Unlock()
		return false
	}
	delete(a.runs, r.key)
	a.mu.Unlock()
	close(r.done)
	return true
}

// work is what one cycle acts on.
type work struct {
	tasks []*task
	sid   string
	msgs  []envelope
}

// pick chooses the next work not yet tried by this run: the oldest task
// (with its session's pending messages), else the session whose oldest
// message waits longest. A task the transition left unresolved is tried,
// so it does not keep other sessions waiting. The messages are those of
// the session as rec holds it: loadSession loads it when it is not.
func pick(rec *record, tried map[string]bool) work {
	for _, t := range rec.orderedTasks() {
		if tried[t.JobID] {
			continue
		}
		w := work{tasks: []*task{t}, sid: t.SessionID}
		if s := rec.Sessions[t.SessionID]; s != nil {
			w.msgs = s.Pending
		}
		return w
	}
	var w work
	oldest := int64(-1)
	for sid, ts := range rec.inbox() {
		if oldest < 0 || ts < oldest || (ts == oldest && sid < w.sid) {
			w, oldest = work{sid: sid}, ts
		}
	}
	if s := rec.Sessions[w.sid]; s != nil {
		w.msgs = s.Pending
	}
	return w
}

// loadSession loads the session of w into rec, if rec does not hold it,
// and takes w's messages from it.
func loadSession(ctx context.Context, eng *runtime.Engine, id string, rec *record, w work) (work, error) {
	if w.sid == "" || rec.Sessions[w.sid] != nil {
		return w, nil
	}
	full, err := load(ctx, eng, id, sessionScope(w.sid))
	if err != nil || full == nil {
		return w, err
	}
	if s := full.Sessions[w.sid]; s != nil {
		rec.Sessions[w.sid], w.msgs = s, s.Pending
		return w, nil
	}
	if _, listed := full.Inbox[w.sid]; listed {
		// The inbox names a session that is no more: dropped, or every
		// run would find it as work and settle never (a spin).
		delete(rec.Inbox, w.sid)
		return w, update(ctx, eng, id, sessionScope(w.sid), func(cur *record) (*record, error) {
			if cur == nil || cur.Sessions[w.sid] != nil {
				return nil, nil
			}
			if _, ok := cur.Inbox[w.sid]; !ok {
				return nil, nil
			}
			delete(cur.Inbox, w.sid)
			return cur, nil
		})
	}
	return w, nil
}

// cycle runs one transition and reports whether to go on.
func (a *Agents) cycle(ctx context.Context, r *run, force bool) (bool, error) {
	rec, err := load(ctx, r.eng, r.id, scope{})
	if err != nil || rec == nil || rec.Status != Running || rec.Gen != r.gen {
		return false, err
	}
	if !a.cfg.SingleNode {
		if rec.Lease != r.lease {
			r.taken = true
			return false, nil
		}
		ok, err := a.renew(ctx, r)
		if err != nil || !ok {
			r.taken = err == nil
			return false, err
		}
	}
	w, err := loadSession(ctx, r.eng, r.id, rec, a.pickOpen(ctx, r, rec))
	if err != nil {
		return false, err
	}
	if len(w.tasks) == 0 && len(w.msgs) == 0 && !force {
		return a.settle(ctx, r)
	}
	start := a.ms()
	in := transitionInput(r.id, rec, w, false)
	r.mu.Lock()
	r.results, r.msgs = map[string]taskResult{}, map[string]bool{}
	if len(w.tasks) > 0 {
		r.task = w.tasks[0].JobID
	}
	for _, m := range w.msgs {
		r.msgs[m.ID] = true
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.msgs = nil
		r.mu.Unlock()
	}()
	stop := a.keepLease(ctx, r)
	out, jobID, err := callTransition(ctx, r.eng, agentCaller(r.caller, rec.Caps, rec.Config, a.ms()), opOf(rec.Config), in)
	stop()
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

// pickOpen picks the next work, dropping each task whose job has ended
// meanwhile (cancelled through the jobs API, say) or is no task of this
// agent's: such a task is never run.
func (a *Agents) pickOpen(ctx context.Context, r *run, rec *record) work {
	for {
		w := pick(rec, r.tried)
		if len(w.tasks) == 0 || a.taskOpen(ctx, r.eng, r.id, w.tasks[0].JobID) {
			return w
		}
		id := w.tasks[0].JobID
		delete(rec.Tasks, id)
		update(ctx, r.eng, r.id, scope{}, func(cur *record) (*record, error) {
			if cur == nil || cur.Gen != r.gen || cur.Tasks[id] == nil {
				return nil, nil
			}
			delete(cur.Tasks, id)
			cur.Updated = a.ms()
			return cur, nil
		})
	}
}

// settle puts a RUNNING agent with no work left to try back to SLEEPING;
// if work came in meanwhile it stays RUNNING and the loop goes on.
func (a *Agents) settle(ctx context.Context, r *run) (bool, error) {
	more, slept := false, false
	err := update(ctx, r.eng, r.id, scope{}, func(rec *record) (*record, error) {
		more, slept = false, false
		if rec == nil || rec.Status != Running || rec.Gen != r.gen {
			return nil, nil
		}
		if more = rec.hasWorkBut(r.tried); more {
			return nil, nil
		}
		rec.Status, rec.Lease, rec.Updated, slept = Sleeping, 0, a.ms(), true
		return rec, nil
	})
	r.freed = err == nil && slept
	return more, err
}

// fail suspends the agent after a failed transition: the error is
// recorded; tasks, sessions and pending messages stay as they were. Every
// chat waiting on the agent gets the error, as none will be answered.
func (a *Agents) fail(ctx context.Context, r *run, w work, cause error) {
	if a.isClosing() {
		a.pause(ctx, r)
		return
	}
	msg := venue.ErrorMessage(cause)
	suspended := false
	update(ctx, r.eng, r.id, scope{}, func(rec *record) (*record, error) {
		if rec == nil || rec.Status == Terminated || rec.Gen != r.gen {
			return nil, nil
		}
		rec.Status, rec.Error, rec.Lease, rec.Updated, suspended = Suspended, &msg, 0, a.ms(), true
		return rec, nil
	})
	r.freed = suspended
	a.answerChat(r, w, outcome{err: venue.Errorf(venue.EINVALID, "Agent %s failed and is suspended: %s", r.id, msg)})
	if suspended {
		a.endChats(r.key, false, venue.Errorf(venue.ECONFLICT, "Agent %s failed on other work and is suspended: %s. Your message stays in its session and is read when the agent resumes (v/ops/agent/resume).", r.id, msg))
	}
}

// pause puts the agent of a run the shutdown stopped back to SLEEPING,
// with its work, for the restart to take up.
func (a *Agents) pause(ctx context.Context, r *run) {
	update(ctx, r.eng, r.id, scope{}, func(rec *record) (*record, error) {
		if rec == nil || rec.Status != Running || rec.Gen != r.gen {
			return nil, nil
		}
		rec.Status, rec.Lease, rec.Updated, rec.Interrupted = Sleeping, 0, a.ms(), rec.hasWork()
		return rec, nil
	})
}

// stopForClose ends a run as the venue shuts down, before it starts
// another cycle on the stopping engine (whose transition jobs nothing would
// run or end): its agent goes back to SLEEPING with its work (pause), a
// lease kept by a suspend during the cycle ends, and the run is released.
func (a *Agents) stopForClose(ctx context.Context, r *run) {
	a.pause(ctx, r)
	if !r.freed {
		a.retire(ctx, r)
	}
	a.release(r)
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
