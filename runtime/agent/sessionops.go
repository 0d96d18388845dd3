package agent

import (
	"context"
	"encoding/json"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// sessionsOp lists a page of an agent's sessions, with each one's meta and
// whether messages wait in it: an agent gathers a session for every
// request or message sent without a sessionId, and this is how its owner
// finds them, to read or to delete.
func (a *Agents) sessionsOp(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		AgentID string `json:"agentId"`
		Offset  int    `json:"offset"`
		Limit   int    `json:"limit"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	eng, octx := env.Engine(), env.Context(ctx)
	r, err := load(octx, eng, p.AgentID, scope{})
	switch {
	case err != nil:
		return nil, err
	case r == nil:
		return nil, notFound(p.AgentID)
	}
	if p.Limit == 0 {
		p.Limit = 100 // the schema's default
	}
	res, err := eng.ListFields(octx, "g/"+p.AgentID+"/sessions", p.Offset, p.Limit, []string{"meta"})
	if err != nil {
		return nil, err
	}
	sessions := make([]map[string]any, 0, len(res.Keys))
	for _, sid := range res.Keys {
		var meta sessionMeta
		json.Unmarshal(res.Values[sid]["meta"].Value, &meta)
		sessions = append(sessions, map[string]any{"sessionId": sid, "parties": meta.Parties, "created": meta.Created,
			"turns": meta.Turns, "waiting": r.Inbox[sid] > 0})
	}
	return output(map[string]any{"agentId": p.AgentID, "sessions": sessions, "total": res.Count, "offset": res.Offset})
}

// deleteSession deletes one of an agent's sessions, with the messages
// waiting in it. A session a pending task belongs to, or a chat waits on,
// stays, as does every session while a run may be working on one.
func (a *Agents) deleteSession(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		AgentID   string `json:"agentId"`
		SessionID string `json:"sessionId"`
	}
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, venue.Errorf(venue.EINVALID, "sessionId is required: list them with v/ops/agent/sessions")
	}
	sid, err := normSession(p.SessionID)
	if err != nil {
		return nil, err
	}
	chatting := func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.chats[chatKey(env.Caller().DID, p.AgentID, sid)] != nil
	}
	dropped := 0
	err = update(env.Context(ctx), env.Engine(), p.AgentID, sessionScope(sid), func(r *record) (*record, error) {
		switch {
		case r == nil:
			return nil, notFound(p.AgentID)
		case r.Sessions[sid] == nil:
			return nil, venue.Errorf(venue.ENOTFOUND, "Unknown sessionId %s on agent %s: list them with v/ops/agent/sessions", sid, p.AgentID)
		case a.busy(env.Caller().DID, p.AgentID, r):
			return nil, venue.Errorf(venue.ECONFLICT, "Agent %s is running: delete the session once it is %s", p.AgentID, Sleeping)
		case chatting():
			// Asked in the write, not before it: a chat registers before
			// it delivers its message, so one whose message this write
			// would drop shows here (and one begun after it finds no
			// session).
			return nil, venue.Errorf(venue.ECONFLICT, "A chat waits on session %s of agent %s: delete it once the chat is answered", sid, p.AgentID)
		}
		for _, t := range r.orderedTasks() {
			if t.SessionID == sid {
				return nil, venue.Errorf(venue.ECONFLICT, "Task %s of session %s is pending: delete the session once it ends, or cancel it first (v/ops/agent/cancel-task)", t.JobID, sid)
			}
		}
		dropped = len(r.Sessions[sid].Pending)
		delete(r.Sessions, sid)
		delete(r.Inbox, sid)
		r.Updated = a.ms()
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return output(map[string]any{"agentId": p.AgentID, "sessionId": sid, "deleted": true, "droppedMessages": dropped})
}
