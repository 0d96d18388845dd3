package agent

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// transitionInputWire is the transition input as a transition reads it.
type transitionInputWire struct {
	AgentID string          `json:"agentId"`
	Config  map[string]any  `json:"config"`
	State   json.RawMessage `json:"state"`
	Tasks   []struct {
		JobID string          `json:"jobId"`
		Input json.RawMessage `json:"input"`
	} `json:"tasks"`
	Session *struct {
		ID      string            `json:"id"`
		Pending []json.RawMessage `json:"pending"`
	} `json:"session"`
	Inspect bool `json:"inspect"`
}

// Scripted is the deterministic transition (transition:scripted): no
// model, the same input always gives the same output. Each run counts in
// state.runs; the result echoes the last message or task; each task
// completes with {"echo": input, "run": n}, or fails if its input has a
// "fail" reason, or stays pending if it has "defer": true. A message or
// task with a "crash" reason (or a string message "crash: reason") fails
// the whole run, which suspends the agent; one with "delay" (ms, at most
// a minute) makes the run take that long, for tests of runs in flight. With config.script, a list of
// values, the result of run n is script[(n-1) mod len] instead.
func Scripted(ctx context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	var p transitionInputWire
	if err := json.Unmarshal(in, &p); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "transition input is not {agentId, state, tasks, session}: %v", err)
	}
	if p.Inspect {
		return output(map[string]any{"transition": "scripted", "input": json.RawMessage(in)})
	}
	var state map[string]any
	if json.Unmarshal(p.State, &state) != nil || state == nil {
		state = map[string]any{}
	}
	n, _ := state["runs"].(float64)
	n++
	state["runs"] = n
	var last json.RawMessage
	if p.Session != nil {
		for _, m := range p.Session.Pending {
			if reason := crash(m); reason != "" {
				return nil, venue.Errorf(venue.EINVALID, "%s", reason)
			}
			if err := pause(ctx, m); err != nil {
				return nil, err
			}
			last = m
		}
	}
	results := map[string]taskResult{}
	for _, t := range p.Tasks {
		if reason := crash(t.Input); reason != "" {
			return nil, venue.Errorf(venue.EINVALID, "%s", reason)
		}
		if err := pause(ctx, t.Input); err != nil {
			return nil, err
		}
		last = t.Input
		var ctl struct {
			Fail  string `json:"fail"`
			Defer bool   `json:"defer"`
		}
		json.Unmarshal(t.Input, &ctl)
		switch {
		case ctl.Defer:
		case ctl.Fail != "":
			msg, _ := json.Marshal(ctl.Fail)
			results[t.JobID] = taskResult{Status: string(venue.StatusFailed), Output: msg}
		default:
			out, _ := json.Marshal(map[string]any{"echo": t.Input, "run": n})
			results[t.JobID] = taskResult{Status: string(venue.StatusComplete), Output: out}
		}
	}
	result, _ := json.Marshal(map[string]any{"echo": last, "run": n})
	if script, ok := p.Config["script"].([]any); ok && len(script) > 0 {
		result, _ = json.Marshal(script[(int(n)-1)%len(script)])
	}
	return output(map[string]any{"state": state, "result": json.RawMessage(result), "taskResults": results})
}

// crash returns the reason a message or task asks the run to fail with.
func crash(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if r, ok := strings.CutPrefix(s, "crash:"); ok {
			return strings.TrimSpace(r)
		}
		return ""
	}
	var m struct {
		Crash string `json:"crash"`
	}
	json.Unmarshal(v, &m)
	return m.Crash
}

// pause sleeps for a message's "delay" ms.
func pause(ctx context.Context, v json.RawMessage) error {
	var m struct {
		Delay int64 `json:"delay"`
	}
	if json.Unmarshal(v, &m) != nil || m.Delay <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(min(m.Delay, 60_000)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
