package agent

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

type createParams struct {
	AgentID    string          `json:"agentId"`
	Config     json.RawMessage `json:"config"`
	Definition json.RawMessage `json:"definition"` // the reference venue's older name for config
	State      json.RawMessage `json:"state"`
	Caps       json.RawMessage `json:"caps"`
	Overwrite  bool            `json:"overwrite"`
}

// authorizeCreate checks agent-create authority on g/<id> of the caller.
func authorizeCreate(ctx context.Context, env *runtime.Env, id string) error {
	return env.Engine().Authorize(env.Context(ctx), env.Caller().DID+"/g/"+id, venue.AbilityAgentCreate)
}

func (a *Agents) create(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p createParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if len(p.Config) == 0 {
		p.Config = p.Definition
	}
	return a.createAgent(ctx, env, p)
}

// createAgent creates or overwrites an agent as the status table says.
func (a *Agents) createAgent(ctx context.Context, env *runtime.Env, p createParams) (json.RawMessage, error) {
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if err := authorizeCreate(ctx, env, p.AgentID); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	cfg, err := resolveConfig(octx, eng, p.Config)
	if err == nil {
		err = checkKeyHeld(octx, eng, env.Caller().DID, cfg)
	}
	if err != nil {
		return nil, err
	}
	caps, err := capsFor(octx, eng, env.Caller().DID, p.Caps)
	if err != nil {
		return nil, err
	}
	created, updated, status := false, false, Sleeping
	owner := env.Caller().DID
	err = update(octx, eng, p.AgentID, scope{}, func(r *record) (*record, error) {
		created, updated = false, false
		switch {
		case r != nil && !p.Overwrite:
			status = r.Status
			return nil, nil
		case r != nil && a.busy(owner, p.AgentID, r):
			return nil, runningRefusal(p.AgentID, r.Status)
		case r != nil && r.Status != Terminated:
			if r.Status == Running { // stale: nothing runs it
				r.Status = Sleeping
			}
			r.Lease = 0
			r.Config, r.Caps, r.Updated, updated, status = cfg, caps, a.ms(), true, r.Status
			if len(p.State) > 0 {
				r.State = p.State
			}
			return r, nil
		}
		created, status = true, Sleeping
		return a.newRecord(cfg, p.State, caps), nil
	})
	if err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "status": status, "created": created, "updated": updated})
}

// runningRefusal is the reference venue's answer to overwriting an agent
// in a run, or one suspended while its last cycle still runs.
func runningRefusal(id string, status string) error {
	if status != Running {
		return venue.Errorf(venue.ECONFLICT, "Cannot update agent %s: %s, but the transition it was running has not finished. Wait for it to finish.", id, status)
	}
	return venue.Errorf(venue.ECONFLICT, "Cannot update agent %s: currently RUNNING. Wait for the active transition to finish, or call agent:cancelTask first.", id)
}

// newRecord is a fresh agent, of a generation of its own.
func (a *Agents) newRecord(cfg map[string]any, state json.RawMessage, caps []grant) *record {
	return &record{Status: Sleeping, Config: cfg, State: state, Caps: caps, Tasks: map[string]*task{},
		Sessions: map[string]*session{}, Inbox: map[string]int64{}, Created: a.ms(), Updated: a.ms(), Gen: a.newSessionID(), hasTimeline: true}
}

func (a *Agents) updateOp(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		AgentID string          `json:"agentId"`
		Config  map[string]any  `json:"config"`
		State   json.RawMessage `json:"state"`
		Caps    json.RawMessage `json:"caps"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if p.Config == nil && len(p.State) == 0 && len(p.Caps) == 0 {
		return nil, venue.Errorf(venue.EINVALID, "At least one of 'config' or 'state' must be provided (or 'caps')")
	}
	var caps []grant
	if len(p.Caps) > 0 {
		// Replacing caps is granting them anew: the same check as create.
		given, err := parseCaps(env.Caller().DID, p.Caps)
		if err == nil && given == nil {
			err = venue.Errorf(venue.EINVALID, "caps must be a list of {\"with\", \"can\"}; to restore the default give [{\"with\": \"%s\", \"can\": \"*\"}]", env.Caller().DID)
		}
		if err == nil {
			caps, err = checkHeld(env.Context(ctx), env.Engine(), env.Caller().DID, given)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := checkConfig(p.Config); err != nil {
		return nil, err
	}
	status := ""
	err := update(env.Context(ctx), env.Engine(), p.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(p.AgentID)
		}
		if len(p.State) > 0 && a.busy(env.Caller().DID, p.AgentID, r) {
			// The run commits the state its transition made from the one
			// it started with, which would drop this one unannounced.
			return nil, runningRefusal(p.AgentID, r.Status)
		}
		if caps != nil {
			r.Caps = caps
		}
		maps.Copy(r.Config, p.Config)
		if err := checkKeyHeld(env.Context(ctx), env.Engine(), env.Caller().DID, r.Config); err != nil {
			return nil, err
		}
		if len(p.State) > 0 {
			r.State = p.State
		}
		r.Updated, status = a.ms(), r.Status
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "status": status})
}

func (a *Agents) fork(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		SourceID        string          `json:"sourceId"`
		AgentID         string          `json:"agentId"`
		Config          json.RawMessage `json:"config"`
		IncludeTimeline bool            `json:"includeTimeline"`
		Overwrite       bool            `json:"overwrite"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if p.SourceID == "" {
		return nil, venue.Errorf(venue.EINVALID, "sourceId is required")
	}
	if err := checkAgentID("sourceId", p.SourceID); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if err := authorizeCreate(ctx, env, p.AgentID); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	src, err := load(octx, eng, p.SourceID, scope{timeline: p.IncludeTimeline})
	switch {
	case err != nil:
		return nil, err
	case src == nil:
		return nil, venue.Errorf(venue.ENOTFOUND, "Source agent not found: %s", p.SourceID)
	case src.Status == Terminated:
		return nil, venue.Errorf(venue.ECONFLICT, "Cannot fork TERMINATED agent: %s", p.SourceID)
	}
	cfg := maps.Clone(src.Config)
	if len(p.Config) > 0 {
		// Laid over the source's as given: with the defaults filled in, a
		// config without an operation would replace the source's
		// transition with the default one.
		over, err := readConfig(octx, eng, p.Config)
		if err != nil {
			return nil, err
		}
		maps.Copy(cfg, over)
	}
	if cfg, err = withDefaults(cfg); err != nil {
		return nil, err
	}
	if err := checkKeyHeld(octx, eng, env.Caller().DID, cfg); err != nil {
		return nil, err
	}
	// The fork holds the source's caps, which its creator must hold too.
	caps, err := checkHeld(octx, eng, env.Caller().DID, capabilities(src.Caps))
	if err != nil {
		return nil, err
	}
	n := a.newRecord(cfg, src.State, caps)
	if p.IncludeTimeline {
		n.Timeline = src.Timeline
	}
	err = update(octx, eng, p.AgentID, scope{}, func(r *record) (*record, error) {
		if r != nil && (!p.Overwrite || a.busy(env.Caller().DID, p.AgentID, r)) {
			return nil, venue.Errorf(venue.ECONFLICT, "Target agent already exists: %s", p.AgentID)
		}
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "status": Sleeping, "created": true, "forkedFrom": p.SourceID})
}

type idParams struct {
	AgentID  string `json:"agentId"`
	AutoWake *bool  `json:"autoWake"`
	Remove   bool   `json:"remove"`
	TaskID   string `json:"taskId"`
}

func (p *idParams) parse(in json.RawMessage) error {
	if err := parse(in, p); err != nil {
		return err
	}
	return checkAgentID("agentId", p.AgentID)
}

func (a *Agents) suspend(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p idParams
	if err := p.parse(in); err != nil {
		return nil, err
	}
	err := update(env.Context(ctx), env.Engine(), p.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(p.AgentID)
		}
		// A run in flight finishes its cycle and then stops: it commits
		// only while the agent is RUNNING.
		r.Status, r.Updated = Suspended, a.ms()
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	a.endChats(runKey(env.Caller().DID, p.AgentID), true, venue.Errorf(venue.ECONFLICT,
		"Agent %s was suspended before it answered: your message stays in its session and is read when it resumes (v/ops/agent/resume)", p.AgentID))
	return output(map[string]any{"agentId": p.AgentID, "status": Suspended})
}

func (a *Agents) resume(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p idParams
	if err := p.parse(in); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	status := ""
	err := update(octx, eng, p.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(p.AgentID)
		}
		if r.Status != Suspended {
			return nil, venue.Errorf(venue.ECONFLICT, "Agent is not suspended (status: %s)", r.Status)
		}
		status = Sleeping
		if a.busy(env.Caller().DID, p.AgentID, r) {
			// Suspended mid-cycle, and the cycle still runs: the run
			// keeps its lease and goes on, so the agent is RUNNING, not
			// SLEEPING beside a run that a create could overwrite.
			status = Running
		} else {
			r.Lease = 0
		}
		r.Status, r.Error, r.Updated = status, nil, a.ms()
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	if status == Sleeping && (p.AutoWake == nil || *p.AutoWake) {
		if _, err := a.wake(octx, eng, p.AgentID, false); err != nil {
			return nil, err
		}
	}
	return output(map[string]any{"agentId": p.AgentID, "status": status})
}

func (a *Agents) deleteOp(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p idParams
	if err := p.parse(in); err != nil {
		return nil, err
	}
	var tasks []string
	err := update(env.Context(ctx), env.Engine(), p.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil {
			return nil, notFound(p.AgentID)
		}
		tasks = tasks[:0]
		for id := range r.Tasks {
			tasks = append(tasks, id)
		}
		if p.Remove {
			return gone, nil
		}
		r.Status, r.Lease, r.Updated = Terminated, 0, a.ms()
		return r, nil
	})
	if p.Remove && venue.ErrorCode(err) == venue.EINVALID {
		// A record that does not decode, which its error says to remove.
		err = removeRows(env.Context(ctx), env.Engine(), p.AgentID)
	}
	if err != nil {
		return nil, err
	}
	// Requests waiting on the agent's tasks, and chats, would otherwise
	// wait until their deadline.
	owner, octx := env.Caller().DID, ownerCtx(plainOwner(env.Caller()))
	for _, id := range tasks {
		a.endTask(octx, env.Engine(), owner, p.AgentID, id, outcome{err: venue.Errorf(venue.ECONFLICT, "Agent %s was deleted before it finished the task", p.AgentID)})
	}
	a.endChats(runKey(owner, p.AgentID), false, venue.Errorf(venue.ECONFLICT, "Agent %s was deleted before it answered", p.AgentID))
	if p.Remove {
		return output(map[string]any{"agentId": p.AgentID, "removed": true})
	}
	return output(map[string]any{"agentId": p.AgentID, "status": Terminated})
}

// removeRows deletes every row of agent id, without reading it as an
// agent.
func removeRows(ctx context.Context, eng *runtime.Engine, id string) error {
	return eng.UpdateTree(ctx, "g/"+id, runtime.Fold{}, func(t runtime.Tree) (map[string]json.RawMessage, error) {
		if !t.Exists {
			return nil, notFound(id)
		}
		return map[string]json.RawMessage{}, nil
	})
}

func (a *Agents) cancelTask(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p idParams
	if err := p.parse(in); err != nil {
		return nil, err
	}
	if p.TaskID == "" {
		return nil, venue.Errorf(venue.EINVALID, "taskId is required")
	}
	jid, err := venue.ParseJobID(p.TaskID)
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Invalid taskId format: %s", clip(p.TaskID))
	}
	id := jid.String()
	err = update(env.Context(ctx), env.Engine(), p.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil || r.Status == Terminated {
			return nil, notLive(p.AgentID)
		}
		if r.Tasks[id] == nil {
			return nil, venue.Errorf(venue.ENOTFOUND, "Task not found: %s", id)
		}
		delete(r.Tasks, id)
		r.Updated = a.ms()
		return r, nil
	})
	if venue.ErrorCode(err) == venue.ENOTFOUND && unqueued(env, p.AgentID, jid) {
		err = nil // its job has not queued it yet: cancelling the job is all it takes
	}
	if err != nil {
		return nil, err
	}
	// The task's job is the owner's: the framework cancels it as the owner,
	// whatever the caps of an agent calling this as a tool.
	if _, err := env.Engine().Cancel(ownerCtx(plainOwner(env.Caller())), jid); err != nil && venue.ErrorCode(err) != venue.ENOTFOUND {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "taskId": id, "cancelled": true})
}

// unqueued reports whether jid is the caller's live task job for agentID
// that has not queued its task yet (every worker was busy when request
// answered).
func unqueued(env *runtime.Env, agentID string, jid venue.JobID) bool {
	j, err := env.Engine().Job(ownerCtx(plainOwner(env.Caller())), jid)
	if err != nil || j.Operation != TaskOp || j.Status.Terminal() {
		return false
	}
	var p taskParams
	return json.Unmarshal(j.Input, &p) == nil && p.AgentID == agentID
}

func (a *Agents) info(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p idParams
	if err := p.parse(in); err != nil {
		return nil, err
	}
	r, err := load(env.Context(ctx), env.Engine(), p.AgentID, scope{timeline: true})
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, notFound(p.AgentID)
	}
	caps := r.Caps
	if caps == nil {
		caps = defaultCaps(env.Caller().DID)
	}
	return output(map[string]any{"agentId": p.AgentID, "status": r.Status, "config": r.Config, "caps": capsView(caps, a.ms()),
		"tasks": len(r.Tasks), "timelineLength": len(r.entries()), "error": r.Error})
}

func (a *Agents) list(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		IncludeTerminated bool `json:"includeTerminated"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	ids, err := agentIDs(env.Context(ctx), env.Engine())
	if err != nil {
		return nil, err
	}
	agents := []map[string]any{}
	for _, id := range ids {
		// One read an agent, of the rows it shows: g read whole passed
		// what one read assembles once its agents held some megabytes of
		// sessions, timelines and states, and then listed none.
		r, err := summaryOf(env.Context(ctx), env.Engine(), id)
		switch {
		case venue.ErrorCode(err) == venue.EINVALID:
			continue // a damaged record, or a key no agent id: no agent to list
		case err != nil:
			return nil, err
		case r == nil || (r.Status == Terminated && !p.IncludeTerminated):
			continue
		}
		e := map[string]any{"agentId": id, "status": r.Status, "tasks": len(r.Tasks)}
		if r.Error != nil {
			e["error"] = *r.Error
		}
		agents = append(agents, e)
	}
	return output(map[string]any{"agents": agents, "total": len(agents)})
}

// contextOp asks the agent's transition what it would send, without
// running it: the transition gets its usual input with inspect set. Only a
// transition that declares it reads inspect (an "inspect" property in its
// input schema) is asked: any other would simply run, with whatever that
// does.
func (a *Agents) contextOp(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		AgentID string          `json:"agentId"`
		Task    json.RawMessage `json:"task"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	r, err := live(octx, eng, p.AgentID, scope{})
	if err != nil {
		return nil, err
	}
	op := opOf(r.Config)
	if err := inspectable(octx, eng, op); err != nil {
		return nil, err
	}
	w, err := loadSession(octx, eng, p.AgentID, r, pick(r, nil))
	if err != nil {
		return nil, err
	}
	if len(p.Task) > 0 && string(p.Task) != "null" {
		w.tasks = []*task{{JobID: "0x00000000000000000000000000000000", Input: p.Task, SessionID: w.sid, Status: "PENDING"}}
	}
	owner := plainOwner(env.Caller())
	out, _, err := callTransition(venue.WithCaller(ctx, owner), eng, agentCaller(owner, r.Caps, r.Config, a.ms()), op, transitionInput(p.AgentID, r, w, true))
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Transition %s cannot show its context: %s", op, venue.ErrorMessage(err))
	}
	return out, nil
}

// inspectable checks that transition op supports inspection: its input
// schema declares "inspect".
// Returns EINVALID saying so when it does not.
func inspectable(ctx context.Context, eng *runtime.Engine, op string) error {
	o, err := eng.Operation(ctx, op)
	if err != nil {
		return venue.Errorf(venue.EINVALID, "The agent's transition %s cannot be found: %s", op, venue.ErrorMessage(err))
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(o.Input, &schema)
	if _, ok := schema.Properties["inspect"]; !ok {
		return venue.Errorf(venue.EINVALID, "The agent's transition %s does not support inspection (its input schema declares no 'inspect'), so agent:context cannot show its context without running it", op)
	}
	return nil
}

// agentIDs lists the caller's agent ids, sorted, reading a page of keys of
// g at a time. An agent made between two pages shifts the second by one:
// a key read twice is listed once.
func agentIDs(ctx context.Context, eng *runtime.Engine) ([]string, error) {
	var ids []string
	for offset := 0; ; {
		res, err := eng.List(ctx, "g", offset, runtime.MaxSliceLimit)
		if err != nil {
			return nil, err
		}
		ids, offset = append(ids, res.Keys...), offset+len(res.Keys)
		if !res.Exists || len(res.Keys) == 0 || offset >= res.Count {
			slices.Sort(ids)
			return slices.Compact(ids), nil
		}
	}
}

// summary is what agent:list shows of an agent.
type summary struct {
	Status string                     `json:"status"`
	Tasks  map[string]json.RawMessage `json:"tasks"`
	Error  *string                    `json:"error"`
}

// summaryOf reads agent id's summary, leaving out its sessions, timeline,
// state and config, the rows that grow; nil if there is no agent.
// Returns EINVALID for a record without a status.
func summaryOf(ctx context.Context, eng *runtime.Engine, id string) (*summary, error) {
	fold := scope{}.fold(id)
	fold.Skip = append(fold.Skip, "g/"+id+"/state", "g/"+id+"/config")
	t, err := eng.ReadTree(ctx, "g/"+id, fold)
	if err != nil || !t.Exists {
		return nil, err
	}
	s := &summary{}
	if err := json.Unmarshal(t.Value, s); err != nil || s.Status == "" {
		return nil, damaged(err)
	}
	return s, nil
}
