package agent

import (
	"context"
	"encoding/json"
	"slices"

	venue "github.com/gridvenue/venue"
)

// transitionOutput is what a transition returns (docs/AGENTS.md).
type transitionOutput struct {
	State       json.RawMessage       `json:"state"`
	Result      json.RawMessage       `json:"result"`
	TaskResults map[string]taskResult `json:"taskResults"`
	hasState    bool                  // state was present (absent leaves the agent's)
}

// cycleOutcome is a successful transition, ready to apply.
type cycleOutcome struct {
	start int64
	out   json.RawMessage
	tool  map[string]taskResult // framework tool calls: they win over taskResults
	job   venue.JobID
	state json.RawMessage // the state the cycle started from
	op    string
}

// transitionInput builds the transition's input (docs/AGENTS.md).
func transitionInput(id string, rec *record, w work, inspect bool) json.RawMessage {
	tasks := make([]map[string]any, 0, len(w.tasks))
	for _, t := range w.tasks {
		m := map[string]any{"jobId": t.JobID, "input": t.Input, "status": "PENDING", "sessionId": t.SessionID}
		if len(t.ResponseSchema) > 0 {
			m["responseSchema"] = t.ResponseSchema
		}
		tasks = append(tasks, m)
	}
	state := rec.State
	if len(state) == 0 {
		state = json.RawMessage("null")
	}
	in := map[string]any{"agentId": id, "config": rec.Config, "state": state, "tasks": tasks, "pending": []any{}}
	if s := rec.Sessions[w.sid]; s != nil {
		msgs := make([]json.RawMessage, len(w.msgs))
		for i, m := range w.msgs {
			msgs[i] = m.Message
		}
		in["session"] = map[string]any{"id": w.sid, "parties": s.Meta.Parties, "meta": s.Meta, "c": s.C,
			"history": s.Frames[0].Conversation, "pending": msgs}
	}
	if inspect {
		in["inspect"] = true
	}
	b, _ := json.Marshal(in)
	return b
}

// commit applies a transition's output in one update: new state, resolved
// tasks removed, consumed messages moved into the conversation, a timeline
// entry appended. It reports whether work remains.
func (a *Agents) commit(ctx context.Context, r *run, w work, co cycleOutcome) (bool, error) {
	var out transitionOutput
	var raw map[string]json.RawMessage
	if json.Unmarshal(co.out, &raw) != nil || json.Unmarshal(co.out, &out) != nil {
		err := venue.Errorf(venue.EINVALID, "Transition %s returned %s, not {state, result, taskResults}", co.op, clip(string(co.out)))
		a.fail(ctx, r, w, err)
		return false, err
	}
	_, out.hasState = raw["state"]
	results := map[string]taskResult{}
	for id, tr := range out.TaskResults {
		results[id] = tr
	}
	for id, tr := range co.tool {
		results[id] = tr
	}
	more, mine, freed := false, false, false
	var resolved []string
	err := update(ctx, r.eng, r.id, scope{sessions: []string{w.sid}, timeline: true}, func(rec *record) (*record, error) {
		if mine = rec != nil && rec.Gen == r.gen; !mine {
			return nil, nil // removed, maybe re-created: not the agent this run is for
		}
		resolved, more = a.apply(rec, r, w, co, out, results)
		freed = rec.Lease == 0
		return rec, nil
	})
	r.freed = err == nil && mine && freed
	if err != nil {
		a.fail(ctx, r, w, err)
		return false, err
	}
	if !mine {
		return false, nil
	}
	a.deliver(ctx, r, resolved, results)
	a.answerChat(r, w, outcome{output: out.Result})
	r.mu.Lock()
	r.last, r.lastTR = out.Result, results
	r.mu.Unlock()
	return more, nil
}

// apply changes rec by a cycle's output: new state, resolved tasks
// removed, the conversation and timeline extended, and back to SLEEPING
// unless work is left to try. It returns the tasks resolved and whether
// the run goes on.
func (a *Agents) apply(rec *record, r *run, w work, co cycleOutcome, out transitionOutput, results map[string]taskResult) ([]string, bool) {
	var resolved []string
	if out.hasState {
		rec.State = out.State
	}
	for id := range results {
		if _, ok := rec.Tasks[id]; ok {
			delete(rec.Tasks, id)
			resolved = append(resolved, id)
		}
	}
	a.converse(rec, w, out.Result)
	// The timeline and each session are one row each, which may not
	// outgrow the store's value limit: past it every commit would fail and
	// the agent could never run again. The oldest entries and turns go.
	budget := r.eng.MaxValueSize() / 2
	rec.appendEntry(a.entry(co, w, out.Result, results), budget)
	if s := rec.Sessions[w.sid]; s != nil {
		s.Frames[0].Conversation = trimConversation(s.Frames[0].Conversation, budget)
	}
	rec.Updated = a.ms()
	more := false
	if rec.Status == Running {
		a.markTried(r, w, rec)
		if more = rec.hasWorkBut(r.tried); !more {
			rec.Status, rec.Lease = Sleeping, 0
		}
	}
	return resolved, more
}

// markTried notes the items of w the cycle left as they were (a task
// still queued), so the run picks other work next. The update function may
// run more than once: marking is idempotent.
func (a *Agents) markTried(r *run, w work, rec *record) {
	for _, t := range w.tasks {
		if rec.Tasks[t.JobID] != nil {
			r.tried[t.JobID] = true
		}
	}
}

// converse moves the consumed messages and tasks into the session's
// conversation, followed by the agent's result.
func (a *Agents) converse(rec *record, w work, result json.RawMessage) {
	s := rec.Sessions[w.sid]
	if s == nil {
		return
	}
	now := a.ms()
	conv := &s.Frames[0].Conversation
	for _, t := range w.tasks {
		*conv = append(*conv, turn{Role: "user", Content: t.Input, Task: t.JobID, Ts: now})
	}
	consumed := map[string]bool{}
	for _, m := range w.msgs {
		consumed[m.ID] = true
		*conv = append(*conv, turn{Role: "user", Content: m.Message, Ts: now})
	}
	s.Pending = slices.DeleteFunc(s.Pending, func(e envelope) bool { return consumed[e.ID] })
	if len(result) > 0 && string(result) != "null" {
		*conv = append(*conv, turn{Role: "assistant", Content: result, Ts: now})
	}
	s.Meta.Turns++
}

// entry is the timeline entry of a successful cycle.
func (a *Agents) entry(co cycleOutcome, w work, result json.RawMessage, results map[string]taskResult) json.RawMessage {
	tasks := make([]any, len(w.tasks))
	for i, t := range w.tasks {
		tasks[i] = map[string]any{"jobId": t.JobID, "input": t.Input, "sessionId": t.SessionID}
	}
	msgs := make([]any, len(w.msgs))
	for i, m := range w.msgs {
		msgs[i] = m
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	state := co.state
	if len(state) == 0 {
		state = json.RawMessage("null")
	}
	e := map[string]any{"start": co.start, "end": a.ms(), "op": co.op, "state": state, "tasks": tasks,
		"messages": msgs, "result": result, "taskResults": results, "job": co.job.String()}
	if w.sid != "" {
		e["sessionId"] = w.sid
	}
	b, _ := json.Marshal(e)
	return b
}

// deliver ends the task jobs of the tasks the cycle resolved.
func (a *Agents) deliver(ctx context.Context, r *run, resolved []string, results map[string]taskResult) {
	for _, job := range resolved {
		a.endTask(ctx, r.eng, r.caller.DID, r.id, job, outcomeOf(results[job]))
	}
}

// outcomeOf is what the request waiting on a task gets for its result.
func outcomeOf(tr taskResult) outcome {
	if tr.Status != "" && tr.Status != string(venue.StatusComplete) {
		return outcome{err: venue.Errorf(venue.EINVALID, "%s", failText(tr.Output))}
	}
	if len(tr.Output) == 0 {
		return outcome{output: json.RawMessage("null")}
	}
	return outcome{output: tr.Output}
}

// failText words a failed task's output as an error message.
func failText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil && s != "" {
		return s
	}
	if len(out) == 0 || string(out) == "null" {
		return "The agent failed the task"
	}
	return string(out)
}

// answerChat gives the chat waiting on the cycle's session its answer, if
// the cycle consumed its message.
func (a *Agents) answerChat(r *run, w work, o outcome) {
	if w.sid == "" {
		return
	}
	a.mu.Lock()
	cw := a.chats[runKey(r.key, w.sid)]
	a.mu.Unlock()
	if cw == nil || !slices.ContainsFunc(w.msgs, func(e envelope) bool { return e.ID == cw.msgID }) {
		return
	}
	if o.err == nil && len(o.output) == 0 {
		o.output = json.RawMessage("null")
	}
	select {
	case cw.ch <- o:
	default:
	}
}

// trimTimeline drops the oldest entries of timeline until it encodes in at
// most budget bytes, keeping the newest entry whatever its size.
func trimTimeline(timeline []json.RawMessage, budget int) []json.RawMessage {
	size := 2
	for i := len(timeline) - 1; i >= 0; i-- {
		size += len(timeline[i]) + 1
		if size > budget && i < len(timeline)-1 {
			return slices.Clone(timeline[i+1:])
		}
	}
	return timeline
}

// trimConversation drops the oldest turns of a conversation until it
// encodes in at most budget bytes, keeping the newest turn whatever its
// size.
func trimConversation(conv []turn, budget int) []turn {
	size := 2
	for i := len(conv) - 1; i >= 0; i-- {
		size += len(conv[i].Content) + len(conv[i].Task) + 64 // the turn's other fields and keys
		if size > budget && i < len(conv)-1 {
			return slices.Clone(conv[i+1:])
		}
	}
	return conv
}
