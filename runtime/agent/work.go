package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TaskOp is where the job of a task lives: agent:request invokes it, and it
// ends when the agent resolves the task. It is outside v/ops (not a tool).
const TaskOp = "v/agents/ops/task"

type taskParams struct {
	AgentID        string          `json:"agentId"`
	Input          json.RawMessage `json:"input"`
	SessionID      string          `json:"sessionId"`
	ResponseSchema json.RawMessage `json:"responseSchema"`
	Timeout        *int64          `json:"timeout"`
}

// request sends a task and waits up to timeout for its result.
func (a *Agents) request(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p taskParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if empty(p.Input) {
		return nil, venue.Errorf(venue.EINVALID, "'input' is required and may not be empty: give the task as a JSON value, e.g. {\"question\": \"...\"}")
	}
	if err := checkResponseSchema(p.ResponseSchema); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	if _, err := live(octx, eng, p.AgentID, scope{}); err != nil {
		return nil, err
	}
	sid, err := a.sessionFor(p.SessionID)
	if err != nil {
		return nil, err
	}
	timeout := int64(5000)
	if p.Timeout != nil {
		timeout = max(*p.Timeout, 0)
	}
	tin, _ := json.Marshal(map[string]any{"agentId": p.AgentID, "input": p.Input, "sessionId": sid, "responseSchema": p.ResponseSchema})
	parent := env.JobID()
	rec, err := eng.Invoke(octx, runtime.InvokeRequest{Operation: TaskOp, Input: tin, Parent: &parent})
	if err != nil {
		return nil, err
	}
	// From here on request only waits: it gives its worker back, so that
	// requests waiting cannot hold every worker their task jobs need.
	env.Detach()
	if err := untilQueued(octx, eng, p.AgentID, rec.ID, time.Duration(timeout)*time.Millisecond+time.Second); err != nil {
		return nil, err
	}
	if timeout > 0 {
		if rec, err = eng.Await(octx, rec.ID, time.Duration(timeout)*time.Millisecond); err != nil {
			return nil, err
		}
	}
	switch rec.Status {
	case venue.StatusComplete:
		return withSession(rec.Output, sid), nil
	case venue.StatusFailed, venue.StatusCancelled, venue.StatusRejected:
		return nil, venue.Errorf(venue.EINVALID, "Task %s %s: %s", rec.ID, rec.Status, rec.Error)
	}
	return output(map[string]any{"id": rec.ID.String(), "status": rec.Status, "agentId": p.AgentID, "sessionId": sid})
}

// empty reports whether a task's input is empty, which the spec forbids:
// absent, null, {}, [] or a string of nothing but white space.
func empty(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "", "null", "{}", "[]":
		return true
	}
	var s string
	return json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) == ""
}

// checkResponseSchema refuses a response schema that does not compile.
func checkResponseSchema(s json.RawMessage) error {
	if len(s) == 0 || string(s) == "null" {
		return nil
	}
	_, err := runtime.CompileSchema("responseSchema", s)
	return err
}

// sessionFor validates a given session id, or mints one.
func (a *Agents) sessionFor(sid string) (string, error) {
	if sid == "" {
		return a.newSessionID(), nil
	}
	return normSession(sid)
}

// withSession adds the session id to an object output; other outputs are
// wrapped, so the response always carries it.
func withSession(out json.RawMessage, sid string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(out, &m) != nil || m == nil {
		b, _ := json.Marshal(map[string]any{"result": out, "sessionId": sid})
		return b
	}
	if _, ok := m["sessionId"]; !ok {
		m["sessionId"], _ = json.Marshal(sid)
	}
	b, _ := json.Marshal(m)
	return b
}

// task is the task job: it queues itself on the agent, wakes it and waits
// (without holding a worker) until the agent resolves it.
// untilQueued waits, up to bound, until the task job id has queued its
// task in the agent (or has ended: it may be resolved already), so that the
// id request hands out names a task that info, cancel-task and the lattice
// see. The job queues its task as soon as it runs; past bound (every worker
// busy) request answers anyway, and cancel-task still finds the job.
func untilQueued(ctx context.Context, eng *runtime.Engine, agentID string, id venue.JobID, bound time.Duration) error {
	path := "g/" + agentID + "/tasks/" + id.String()
	deadline := time.Now().Add(bound)
	for wait := time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, 50*time.Millisecond) {
		res, err := eng.Read(ctx, path, 1)
		if err != nil || res.Exists {
			return err
		}
		if j, err := eng.Job(ctx, id); err != nil || j.Status.Terminal() {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(wait):
		}
	}
	return nil
}

func (a *Agents) task(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	p, sid, err := a.taskInput(ctx, in, env)
	if err != nil {
		return nil, err
	}
	id := env.JobID().String()
	key := taskKey(env.Caller().DID, p.AgentID, id)
	ch := make(chan outcome, 1)
	a.mu.Lock()
	a.waiters[key] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiters, key)
		a.mu.Unlock()
	}()
	eng, octx := env.Engine(), env.Context(ctx)
	err = update(octx, eng, p.AgentID, sessionScope(sid), func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(p.AgentID)
		}
		if r.Sessions[sid] == nil {
			r.Sessions[sid] = newSession(env.Caller().DID, a.ms())
		}
		schema := p.ResponseSchema
		if string(schema) == "null" {
			schema = nil
		}
		r.Tasks[id] = &task{JobID: id, Input: p.Input, SessionID: sid, Status: "PENDING", ResponseSchema: schema, Created: a.ms()}
		r.Updated = a.ms()
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	env.HandOver() // the task is queued: a shutdown leaves the job for the agent to end
	if _, err := a.wake(octx, eng, p.AgentID, false); err != nil {
		return nil, err
	}
	env.Detach()
	return a.awaitTask(ctx, octx, eng, p.AgentID, id, key, ch)
}

// taskInput reads and checks the task job's input (as agent:request does,
// for a job invoked any other way is refused) and returns its session.
func (a *Agents) taskInput(ctx context.Context, in json.RawMessage, env *runtime.Env) (taskParams, string, error) {
	var p taskParams
	if err := parse(in, &p); err != nil {
		return p, "", err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return p, "", err
	}
	sid, err := a.sessionFor(p.SessionID)
	if err != nil {
		return p, "", err
	}
	if empty(p.Input) {
		return p, "", venue.Errorf(venue.EINVALID, "'input' is required and may not be empty")
	}
	if err := checkResponseSchema(p.ResponseSchema); err != nil {
		return p, "", err
	}
	return p, sid, fromRequest(ctx, env, p.AgentID)
}

// fromRequest checks that the task job was invoked by agent:request for
// agent id, which validated it: the task operation is the framework's,
// never a door of its own.
func fromRequest(ctx context.Context, env *runtime.Env, id string) error {
	refuse := venue.Errorf(venue.EINVALID, "%s is the job of a task sent with v/ops/agent/request: invoke that instead", TaskOp)
	parent, ok := env.Parent()
	if !ok {
		return refuse
	}
	prec, err := env.Engine().Job(venue.WithCaller(ctx, plainOwner(env.Caller())), parent)
	if err != nil {
		return refuse
	}
	var in struct {
		AgentID string `json:"agentId"`
	}
	if prec.Name != "agent:request" || json.Unmarshal(prec.Input, &in) != nil || in.AgentID != id {
		return refuse
	}
	return nil
}

// taskPoll is how often a waiting task reads its agent's record.
const taskPoll = 200 * time.Millisecond

// awaitTask waits for the agent to resolve task id. A run on this node
// hands the outcome over ch. A run on another node sharing the store
// (several venues on one Postgres) can only leave it in the record: the
// task gone from tasks, its result in a timeline entry. So the record is
// read every taskPoll too.
func (a *Agents) awaitTask(ctx, octx context.Context, eng *runtime.Engine, agentID, id, key string, ch chan outcome) (json.RawMessage, error) {
	tick := time.NewTicker(taskPoll)
	defer tick.Stop()
	for {
		select {
		case o := <-ch:
			return o.output, o.err
		case <-ctx.Done():
			// An outcome sent before the waiter is gone is taken; after,
			// endTask settles the job itself (see endTask).
			a.mu.Lock()
			delete(a.waiters, key)
			a.mu.Unlock()
			select {
			case o := <-ch:
				return o.output, o.err
			default:
			}
			return nil, context.Cause(ctx)
		case <-tick.C:
			o, ok, interrupted := resolvedInRecord(octx, eng, agentID, id)
			if ok {
				return o.output, o.err
			}
			if interrupted {
				a.wake(octx, eng, agentID, false)
			}
		}
	}
}

// resolvedInRecord reports the outcome of task id as the agent's record
// holds it, if the task has left the record's tasks; else whether a
// shutdown interrupted the agent with the task queued.
func resolvedInRecord(ctx context.Context, eng *runtime.Engine, agentID, id string) (outcome, bool, bool) {
	r, err := load(ctx, eng, agentID, scope{})
	switch {
	case err != nil:
		return outcome{}, false, false // the store is unwell: look again later
	case r == nil || r.Status == Terminated:
		return outcome{err: venue.Errorf(venue.ECONFLICT, "Agent %s was deleted before it finished the task", agentID)}, true, false
	case r.Tasks[id] != nil:
		return outcome{}, false, r.Status == Sleeping && r.Interrupted
	}
	// Only a task that has left the record needs the timeline read.
	if r, err = load(ctx, eng, agentID, scope{timeline: true}); err != nil || r == nil {
		return outcome{}, false, false // look again later
	}
	es := r.entries()
	for i := len(es) - 1; i >= 0; i-- {
		var e struct {
			TaskResults map[string]taskResult `json:"taskResults"`
		}
		if json.Unmarshal(es[i], &e) == nil {
			if tr, ok := e.TaskResults[id]; ok {
				return outcomeOf(tr), true, false
			}
		}
	}
	return outcome{err: venue.Errorf(venue.ECONFLICT, "Task %s was cancelled", id)}, true, false
}

type chatParams struct {
	AgentID   string          `json:"agentId"`
	Message   json.RawMessage `json:"message"`
	SessionID string          `json:"sessionId"`
}

// chat delivers a message and waits for the cycle that consumes it.
func (a *Agents) chat(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p chatParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(p.Message)) == 0 {
		return nil, venue.Errorf(venue.EINVALID, "'message' is required: give any JSON value")
	}
	sid, known := a.newSessionID(), ""
	if p.SessionID != "" {
		var err error
		if sid, err = normSession(p.SessionID); err != nil {
			return nil, err
		}
		known = sid
	}
	eng, octx := env.Engine(), env.Context(ctx)
	rec, err := live(octx, eng, p.AgentID, sessionScope(known))
	if err != nil {
		return nil, err
	}
	if rec.Status == Suspended {
		return nil, venue.Errorf(venue.ECONFLICT, "Agent is suspended: %s (resume it with v/ops/agent/resume)", p.AgentID)
	}
	if known != "" {
		if rec.Sessions[sid] == nil {
			return nil, venue.Errorf(venue.ENOTFOUND, "Unknown sessionId %s on agent %s: omit sessionId to start a new session", sid, p.AgentID)
		}
	}
	cw := &chatWait{msgID: a.newSessionID(), ch: make(chan outcome, 1)}
	key := chatKey(env.Caller().DID, p.AgentID, sid)
	a.mu.Lock()
	if a.chats[key] != nil {
		a.mu.Unlock()
		return nil, venue.Errorf(venue.ECONFLICT, "A chat is already in flight on session %s of agent %s: wait for its response, or use another session", sid, p.AgentID)
	}
	a.chats[key] = cw
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.chats, key)
		a.mu.Unlock()
	}()
	if err := a.deliverMessage(octx, eng, env.Caller().DID, p.AgentID, sid, cw.msgID, p.Message, p.SessionID != ""); err != nil {
		return nil, err
	}
	if _, err := a.wake(octx, eng, p.AgentID, false); err != nil {
		return nil, err
	}
	env.Detach()
	resp, err := a.awaitChat(ctx, octx, eng, runKey(env.Caller().DID, p.AgentID), p.AgentID, rec.Gen, sid, cw)
	if err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "sessionId": sid, "response": resp})
}

// awaitChat waits for the cycle that consumes the chat's message. A run on
// this node answers over cw.ch, and so do a suspension or deletion here; one
// on another node shows only in the record, read every taskPoll: an agent
// deleted or re-created will not answer, nor will a suspended one once no
// run of it is in flight here (a cycle in flight commits, and answers).
func (a *Agents) awaitChat(ctx, octx context.Context, eng *runtime.Engine, key, id, gen, sid string, cw *chatWait) (json.RawMessage, error) {
	tick := time.NewTicker(taskPoll)
	defer tick.Stop()
	looked := false // the record was searched for the answer once the message was consumed
	for {
		select {
		case o := <-cw.ch:
			return o.output, o.err
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-tick.C:
			deleted := false
			if !looked && !a.running(key) {
				// A run on another node answers only in the record. The
				// cycle that takes the message off the pending list adds
				// the timeline entry in the same write: a message gone
				// from the list and not in the timeline never will be.
				out, consumed, sessionGone := chatAnsweredInRecord(octx, eng, id, sid, cw.msgID)
				if out != nil {
					return out, nil
				}
				looked, deleted = consumed && !sessionGone, sessionGone
			}
			r, err := peek(octx, eng, id)
			var gone error
			switch {
			case err != nil: // the store is unwell: look again later
			case r == nil || r.Status == Terminated || r.Gen != gen:
				gone = venue.Errorf(venue.ECONFLICT, "Agent %s was deleted before it answered", id)
			case deleted:
				gone = venue.Errorf(venue.ECONFLICT, "Session %s of agent %s was deleted before the agent read your message: chat again, without a sessionId or with another", sid, id)
			case r.Status == Suspended && a.running(key):
			case r.Status == Suspended && r.Error != nil:
				gone = venue.Errorf(venue.ECONFLICT, "Agent %s failed and is suspended: %s. Your message stays in its session and is read when it resumes (v/ops/agent/resume)", id, *r.Error)
			case r.Status == Suspended:
				gone = venue.Errorf(venue.ECONFLICT, "Agent %s was suspended before it answered: your message stays in its session and is read when it resumes (v/ops/agent/resume)", id)
			case r.Status == Sleeping && r.Interrupted:
				a.wake(octx, eng, id, false) // a node's shutdown left the message unread
			}
			if gone != nil {
				// The cycle that ran last may have answered just before it
				// stopped running: its answer wins over the record's word.
				select {
				case o := <-cw.ch:
					return o.output, o.err
				default:
					return nil, gone
				}
			}
		}
	}
}

// chatAnsweredInRecord reports whether a cycle (on any node) consumed
// chat message msgID on session sid, and its response: the result of the
// timeline entry that lists it, nil if none does. gone says the session
// is no more (deleted, from another node, whose delete-session knows
// nothing of this node's chat): unless the timeline holds the answer,
// none will come.
func chatAnsweredInRecord(ctx context.Context, eng *runtime.Engine, id, sid, msgID string) (out json.RawMessage, consumed, gone bool) {
	// The pending list alone, read every taskPoll: the session's frames
	// may be long, and the timeline is read only once the message left it.
	res, err := eng.Read(ctx, "g/"+id+"/sessions/"+sid+"/pending", 1<<30)
	switch {
	case err != nil:
		return nil, false, false
	case !res.Exists:
		gone = true
	default:
		var pending []envelope
		if json.Unmarshal(res.Value, &pending) != nil || slices.ContainsFunc(pending, func(e envelope) bool { return e.ID == msgID }) {
			return nil, false, false
		}
	}
	out, consumed = answerInTimeline(ctx, eng, id, msgID)
	return out, consumed, gone
}

// answerInTimeline returns the result of the timeline entry that consumed
// chat message msgID, if one does, and whether the timeline could be read.
func answerInTimeline(ctx context.Context, eng *runtime.Engine, id, msgID string) (json.RawMessage, bool) {
	res, err := eng.Read(ctx, "g/"+id+"/timeline", 1<<30)
	if err != nil || !res.Exists {
		return nil, err == nil
	}
	var timeline []struct {
		Messages []envelope      `json:"messages"`
		Result   json.RawMessage `json:"result"`
	}
	if json.Unmarshal(res.Value, &timeline) != nil {
		return nil, true
	}
	for i := len(timeline) - 1; i >= 0; i-- {
		if slices.ContainsFunc(timeline[i].Messages, func(e envelope) bool { return e.ID == msgID }) {
			out := timeline[i].Result
			if len(out) == 0 {
				out = json.RawMessage("null")
			}
			return out, true
		}
	}
	return nil, true
}

// peek reads agent id's status, error and generation only (not its
// sessions and timeline, which a poll has no use for); nil if there is no
// agent.
func peek(ctx context.Context, eng *runtime.Engine, id string) (*record, error) {
	r := &record{}
	for _, f := range []struct {
		path string
		dst  any
	}{{"status", &r.Status}, {"error", &r.Error}, {"gen", &r.Gen}, {"interrupted", &r.Interrupted}} {
		res, err := eng.Read(ctx, "g/"+id+"/"+f.path, 0)
		if err != nil {
			return nil, err
		}
		if res.Exists {
			json.Unmarshal(res.Value, f.dst)
		}
	}
	if r.Status == "" {
		return nil, nil
	}
	return r, nil
}

// deliverMessage appends a message to a session's pending queue, minting
// the session unless it must exist already.
func (a *Agents) deliverMessage(ctx context.Context, eng *runtime.Engine, from, id, sid, msgID string, msg json.RawMessage, mustExist bool) error {
	return update(ctx, eng, id, sessionScope(sid), func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(id)
		}
		s := r.Sessions[sid]
		if s == nil {
			if mustExist {
				return nil, venue.Errorf(venue.ENOTFOUND, "Unknown sessionId %s on agent %s: omit sessionId to start a new session", sid, id)
			}
			s = newSession(from, a.ms())
			r.Sessions[sid] = s
		}
		s.Pending = append(s.Pending, envelope{ID: msgID, Message: msg, Source: from, Ts: a.ms()})
		r.Updated = a.ms()
		return r, nil
	})
}

type messageParams struct {
	AgentID   string `json:"agentId"`
	Message   string `json:"message"`
	SessionID string `json:"sessionId"`
}

// message delivers a message for the agent's next run, and nudges it.
func (a *Agents) message(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p messageParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if p.Message == "" {
		return nil, venue.Errorf(venue.EINVALID, "'message' is required: give the message as a string")
	}
	sid, err := a.sessionFor(p.SessionID)
	if err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	msg, _ := json.Marshal(p.Message)
	if err := a.deliverMessage(octx, eng, env.Caller().DID, p.AgentID, sid, a.newSessionID(), msg, false); err != nil {
		return nil, err
	}
	if _, err := a.wake(octx, eng, p.AgentID, false); err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "sessionId": sid, "delivered": true})
}

type triggerParams struct {
	AgentID   string          `json:"agentId"`
	Force     *bool           `json:"force"`
	Wait      json.RawMessage `json:"wait"`
	SessionID string          `json:"sessionId"`
}

// trigger runs one cycle (with force, or when there is work) and waits
// for the loop to end, as asked.
func (a *Agents) trigger(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p triggerParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if p.SessionID != "" {
		// Never used, only echoed, but held to the form the other
		// operations take: one that is no session id is a mistake.
		if _, err := normSession(p.SessionID); err != nil {
			return nil, err
		}
	}
	force := p.Force == nil || *p.Force
	wait, err := waitOf(p.Wait)
	if err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	rec, err := live(octx, eng, p.AgentID, scope{})
	if err != nil {
		return nil, err
	}
	if rec.Status == Suspended {
		return nil, suspendedRefusal(p.AgentID)
	}
	res := map[string]any{"agentId": p.AgentID}
	if p.SessionID != "" {
		res["sessionId"] = p.SessionID
	}
	if !force && !rec.hasWork() {
		res["status"] = rec.Status
		return output(res)
	}
	r, err := a.wake(octx, eng, p.AgentID, force)
	if err != nil {
		return nil, err
	}
	if r == nil {
		if force {
			return nil, a.cannotStart(octx, eng, p.AgentID)
		}
		res["status"] = rec.Status
		return output(res)
	}
	a.awaitRun(ctx, r, wait, res)
	if rec, err = load(octx, eng, p.AgentID, scope{}); err == nil && rec != nil {
		res["status"] = rec.Status
	}
	return output(res)
}

// cannotStart says why a forced cycle of agent id could not start: the
// agent changed since trigger read it (suspended, deleted), or another
// node's run holds it (this node's would have taken the force).
func (a *Agents) cannotStart(ctx context.Context, eng *runtime.Engine, id string) error {
	rec, err := live(ctx, eng, id, scope{})
	switch {
	case err != nil:
		return err
	case rec.Status == Suspended:
		return suspendedRefusal(id)
	case rec.Status == Running && !a.cfg.SingleNode:
		return venue.Errorf(venue.ECONFLICT, "Cannot start agent: %s is running on another node of this venue; trigger it again once it is SLEEPING", id)
	}
	return venue.Errorf(venue.ECONFLICT, "Cannot start agent %s: it is %s", id, rec.Status)
}

// suspendedRefusal refuses a forced cycle of suspended agent id.
func suspendedRefusal(id string) error {
	return venue.Errorf(venue.ECONFLICT, "Agent is suspended: %s", id)
}

// awaitRun waits for the run to end (up to wait) and adds its last result.
func (a *Agents) awaitRun(ctx context.Context, r *run, wait time.Duration, res map[string]any) {
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		return
	case <-ctx.Done():
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		res["error"] = venue.ErrorMessage(r.err)
		return
	}
	if r.last != nil {
		res["result"] = r.last
	}
	if r.lastTR != nil {
		res["taskResults"] = r.lastTR
	}
}

// waitOf reads trigger's wait: true (the default) waits until the cycle
// ends, false not at all, a number that many ms.
func waitOf(w json.RawMessage) (time.Duration, error) {
	switch s := string(bytes.TrimSpace(w)); s {
	case "", "null", "true":
		return 10 * time.Minute, nil
	case "false":
		return 0, nil
	}
	var ms float64
	if json.Unmarshal(w, &ms) != nil || ms < 0 {
		return 0, venue.Errorf(venue.EINVALID, "'wait' must be true, false or a number of milliseconds, got %s", clip(string(w)))
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// scopeError is the failure of a framework tool called outside a run.
func scopeError(op string) error {
	return venue.Errorf(venue.EINVALID, "agent:%s requires task scope (agentId + taskId in RequestContext): call it as a tool of a running agent", op)
}

// resolveTask records a framework tool call (complete_task, fail_task) on
// the task in scope of the run that called it: the transition job that is
// this job's parent.
func (a *Agents) resolveTask(ctx context.Context, env *runtime.Env, op string, tr taskResult) (json.RawMessage, error) {
	parent, ok := env.Parent()
	if !ok {
		return nil, scopeError(op)
	}
	// The parent's record is read by the framework for the owner: the
	// agent calling this tool need hold no read on the owner's jobs.
	prec, err := env.Engine().Job(venue.WithCaller(ctx, plainOwner(env.Caller())), parent)
	if err != nil {
		return nil, scopeError(op)
	}
	var pin struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(prec.Input, &pin) != nil || pin.AgentID == "" {
		return nil, scopeError(op)
	}
	a.mu.Lock()
	r := a.runs[runKey(env.Caller().DID, pin.AgentID)]
	a.mu.Unlock()
	if r == nil {
		return nil, scopeError(op)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task == "" || r.results == nil {
		return nil, scopeError(op)
	}
	r.results[r.task] = tr
	return output(map[string]any{"agentId": pin.AgentID, "taskId": r.task, "status": tr.Status})
}

func (a *Agents) completeTask(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Result json.RawMessage `json:"result"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if len(p.Result) == 0 {
		p.Result = json.RawMessage("null")
	}
	return a.resolveTask(ctx, env, "completeTask", taskResult{Status: string(venue.StatusComplete), Output: p.Result})
}

func (a *Agents) failTask(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Error string `json:"error"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if p.Error == "" {
		return nil, venue.Errorf(venue.EINVALID, "'error' is required: say why the task failed")
	}
	msg, _ := json.Marshal(p.Error)
	return a.resolveTask(ctx, env, "failTask", taskResult{Status: string(venue.StatusFailed), Output: msg})
}
