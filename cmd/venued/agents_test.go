package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/runtime/agent"
	"github.com/gridvenue/venue/sql/sqltest"
)

// out runs op and decodes its output, failing the test unless it is 200.
func (c *client) out(t *testing.T, op, input string) map[string]any {
	t.Helper()
	r := c.run(t, op, input)
	if r.status != 200 {
		t.Fatalf("%s %s: %d %s", op, input, r.status, r.body)
	}
	var m map[string]any
	r.json(t, &m)
	return m
}

// refused runs op and checks it fails with a message containing want.
func (c *client) refused(t *testing.T, op, input, want string) {
	t.Helper()
	r := c.run(t, op, input)
	if r.status < 400 || !strings.Contains(r.errorText(t), want) {
		t.Fatalf("%s %s: %d %s, want an error containing %q", op, input, r.status, r.body, want)
	}
}

func (c *client) read(t *testing.T, path string) json.RawMessage {
	t.Helper()
	var res struct {
		Exists bool            `json:"exists"`
		Value  json.RawMessage `json:"value"`
	}
	c.do(t, "GET", "/api/v1/values/read?path="+path, nil).json(t, &res)
	if !res.Exists {
		return nil
	}
	return res.Value
}

// eventually polls cond for up to fifteen seconds: a bound for a loaded
// machine under the race detector, not an expectation.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}

func (c *client) status(t *testing.T, id string) string {
	t.Helper()
	return c.out(t, "v/ops/agent/info", `{"agentId": "`+id+`"}`)["status"].(string)
}

// transitionRunning reports whether a job of the scripted transition is
// STARTED: a cycle is under way, not only claimed (RUNNING shows from the
// claim, before the cycle reads the agent, and a suspend in between is no
// suspend mid-cycle).
func (c *client) transitionRunning(t *testing.T) bool {
	t.Helper()
	var ids []string
	c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
	// Newest first: the transition is among the last jobs, and a poll
	// through every job of a long test outlasted a short transition.
	for _, id := range slices.Backward(ids) {
		var j jobJSON
		c.do(t, "GET", "/api/v1/jobs/"+id, nil).json(t, &j)
		if j.Operation == "v/ops/transition/scripted" && j.Status == "STARTED" {
			return true
		}
	}
	return false
}

const scripted = `{"operation": "v/ops/transition/scripted", "model": "none", "systemPrompt": "echo"}`

// TestAgents_Lifecycle walks an agent with the deterministic transition
// through the status table, with tasks, chat, messages and the timeline.
func TestAgents_Lifecycle(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		created := c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		if created["status"] != "SLEEPING" || created["created"] != true {
			t.Fatalf("create: %v", created)
		}
		t.Run("request answers in time with the task's output and session", func(t *testing.T) {
			out := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"q": 1}}`)
			if out["run"] != 1.0 || out["sessionId"] == nil || !jsonSame(mustJSON(out["echo"]), json.RawMessage(`{"q":1}`)) {
				t.Fatalf("%v", out)
			}
			sid := out["sessionId"].(string)
			meta := c.read(t, "g/bot/sessions/"+sid+"/meta")
			if !strings.Contains(string(meta), `"turns":1`) {
				t.Fatalf("meta %s", meta)
			}
			conv := c.read(t, "g/bot/sessions/"+sid+"/frames/0/conversation")
			if !strings.Contains(string(conv), `"role":"assistant"`) {
				t.Fatalf("conversation %s", conv)
			}
			tl := c.read(t, "g/bot/timeline/0")
			for _, f := range []string{"start", "end", "op", "tasks", "messages", "result", "taskResults"} {
				if !strings.Contains(string(tl), `"`+f+`":`) {
					t.Fatalf("timeline entry lacks %s: %s", f, tl)
				}
			}
		})
		t.Run("request with timeout 0 gives a snapshot that job-result awaits", func(t *testing.T) {
			snap := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"q": 2}, "timeout": 0}`)
			if snap["id"] == nil || snap["agentId"] != "bot" || snap["sessionId"] == nil || snap["status"] == nil {
				t.Fatalf("snapshot %v", snap)
			}
			res := c.out(t, "v/ops/grid/job-result", `{"id": "`+snap["id"].(string)+`", "timeout": 5000}`)
			if !jsonSame(mustJSON(res["echo"]), json.RawMessage(`{"q":2}`)) {
				t.Fatalf("result %v", res)
			}
		})
		t.Run("chat answers on its session and keeps the thread", func(t *testing.T) {
			first := c.out(t, "v/ops/agent/chat", `{"agentId": "bot", "message": "hello"}`)
			sid, _ := first["sessionId"].(string)
			if sid == "" || !jsonSame(mustJSON(first["response"]), mustJSON(map[string]any{"echo": "hello", "run": first["response"].(map[string]any)["run"]})) {
				t.Fatalf("chat %v", first)
			}
			second := c.out(t, "v/ops/agent/chat", `{"agentId": "bot", "sessionId": "`+sid+`", "message": "again"}`)
			if second["sessionId"] != sid {
				t.Fatalf("chat %v", second)
			}
			conv := c.read(t, "g/bot/sessions/"+sid+"/frames/0/conversation")
			if strings.Count(string(conv), `"role":"user"`) != 2 {
				t.Fatalf("conversation %s", conv)
			}
		})
		t.Run("message is delivered and consumed by the next run", func(t *testing.T) {
			out := c.out(t, "v/ops/agent/message", `{"agentId": "bot", "message": "note this"}`)
			if out["delivered"] != true || out["sessionId"] == nil {
				t.Fatalf("%v", out)
			}
			sid := out["sessionId"].(string)
			eventually(t, "the message is consumed", func() bool {
				return string(c.read(t, "g/bot/sessions/"+sid+"/pending")) == "[]"
			})
		})
		t.Run("trigger runs one forced cycle, and without force and work nothing", func(t *testing.T) {
			before := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)["timelineLength"].(float64)
			out := c.out(t, "v/ops/agent/trigger", `{"agentId": "bot", "sessionId": "abcdef0123456789"}`)
			if out["sessionId"] != "abcdef0123456789" || out["result"] == nil || out["status"] != "SLEEPING" {
				t.Fatalf("%v", out)
			}
			idle := c.out(t, "v/ops/agent/trigger", `{"agentId": "bot", "force": false}`)
			after := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)["timelineLength"].(float64)
			if idle["status"] != "SLEEPING" || after != before+1 {
				t.Fatalf("idle %v, timeline %v → %v", idle, before, after)
			}
		})
		t.Run("a failed run suspends with the error and keeps the work", func(t *testing.T) {
			before := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)["timelineLength"]
			snap := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"crash": "boom"}, "timeout": 0}`)
			eventually(t, "the agent is suspended", func() bool { return c.status(t, "bot") == "SUSPENDED" })
			info := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)
			if !strings.Contains(info["error"].(string), "boom") || info["tasks"] != 1.0 || info["timelineLength"] != before {
				t.Fatalf("info %v", info)
			}
			c.refused(t, "v/ops/agent/trigger", `{"agentId": "bot"}`, "Agent is suspended: bot")
			c.refused(t, "v/ops/agent/resume", `{"agentId": "nobody"}`, "Agent not found or terminated: nobody")
			// The crashing task stays; cancel it, then resume.
			c.out(t, "v/ops/agent/cancel-task", `{"agentId": "bot", "taskId": "`+snap["id"].(string)+`"}`)
			res := c.out(t, "v/ops/agent/resume", `{"agentId": "bot"}`)
			info = c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)
			if res["status"] != "SLEEPING" || info["error"] != nil || info["tasks"] != 0.0 {
				t.Fatalf("resume %v, info %v", res, info)
			}
			c.refused(t, "v/ops/agent/resume", `{"agentId": "bot"}`, "Agent is not suspended (status: SLEEPING)")
		})
		t.Run("suspend holds messages until resume wakes the agent", func(t *testing.T) {
			c.out(t, "v/ops/agent/suspend", `{"agentId": "bot"}`)
			out := c.out(t, "v/ops/agent/message", `{"agentId": "bot", "message": "later"}`)
			sid := out["sessionId"].(string)
			time.Sleep(100 * time.Millisecond)
			if p := string(c.read(t, "g/bot/sessions/"+sid+"/pending")); !strings.Contains(p, "later") {
				t.Fatalf("pending %s", p)
			}
			c.out(t, "v/ops/agent/resume", `{"agentId": "bot", "autoWake": true}`)
			eventually(t, "the message is consumed", func() bool {
				return string(c.read(t, "g/bot/sessions/"+sid+"/pending")) == "[]"
			})
		})
		t.Run("update merges config and leaves framework fields", func(t *testing.T) {
			tl := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)["timelineLength"]
			c.out(t, "v/ops/agent/update", `{"agentId": "bot", "config": {"model": "m2", "status": "HACKED"}}`)
			info := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)
			cfg := info["config"].(map[string]any)
			if cfg["model"] != "m2" || cfg["systemPrompt"] != "echo" || info["status"] != "SLEEPING" || info["timelineLength"] != tl {
				t.Fatalf("%v", info)
			}
			c.refused(t, "v/ops/agent/update", `{"agentId": "bot"}`, "At least one of 'config' or 'state' must be provided")
		})
		t.Run("fork copies config and state, not tasks or sessions", func(t *testing.T) {
			out := c.out(t, "v/ops/agent/fork", `{"sourceId": "bot", "agentId": "bot2", "config": {"model": "m3"}}`)
			if out["forkedFrom"] != "bot" || out["status"] != "SLEEPING" {
				t.Fatalf("%v", out)
			}
			info := c.out(t, "v/ops/agent/info", `{"agentId": "bot2"}`)
			if info["timelineLength"] != 0.0 || info["config"].(map[string]any)["model"] != "m3" {
				t.Fatalf("%v", info)
			}
			if s := string(c.read(t, "g/bot2/state")); !strings.Contains(s, `"runs"`) {
				t.Fatalf("state %s", s)
			}
			c.refused(t, "v/ops/agent/fork", `{"sourceId": "bot", "agentId": "bot2"}`, "Target agent already exists: bot2")
			c.refused(t, "v/ops/agent/fork", `{"sourceId": "ghost", "agentId": "bot3"}`, "Source agent not found: ghost")
		})
		t.Run("create without overwrite leaves the agent; with it updates in place", func(t *testing.T) {
			out := c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
			if out["created"] != false || out["updated"] != false {
				t.Fatalf("%v", out)
			}
			out = c.out(t, "v/ops/agent/create", `{"agentId": "bot2", "config": "template:scripted", "overwrite": true}`)
			if out["created"] != false || out["updated"] != true {
				t.Fatalf("%v", out)
			}
		})
		t.Run("delete terminates, keeps the record, and remove frees the name", func(t *testing.T) {
			c.out(t, "v/ops/agent/delete", `{"agentId": "bot2"}`)
			c.refused(t, "v/ops/agent/request", `{"agentId": "bot2", "input": {"q": 1}}`, "Agent not found or terminated: bot2")
			list := c.out(t, "v/ops/agent/list", `{}`)["agents"].([]any)
			all := c.out(t, "v/ops/agent/list", `{"includeTerminated": true}`)["agents"].([]any)
			if len(list) != 1 || len(all) != 2 {
				t.Fatalf("list %v, all %v", list, all)
			}
			out := c.out(t, "v/ops/agent/create", `{"agentId": "bot2", "config": "template:scripted", "overwrite": true}`)
			if out["created"] != true {
				t.Fatalf("re-create over TERMINATED: %v", out)
			}
			if out := c.out(t, "v/ops/agent/delete", `{"agentId": "bot2", "remove": true}`); out["removed"] != true {
				t.Fatalf("%v", out)
			}
			if c.read(t, "g/bot2") != nil {
				t.Fatal("a removed agent left data behind")
			}
			c.refused(t, "v/ops/agent/info", `{"agentId": "bot2"}`, "Agent not found: bot2")
		})
	})
}

// TestAgents_BadInput: every refusal is clear and changes nothing.
func TestAgents_BadInput(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "a1", "config": `+scripted+`}`)
	before := string(c.read(t, "g/a1"))
	for _, tc := range []struct{ name, op, input, want string }{
		{"empty input", "v/ops/agent/request", `{"agentId": "a1", "input": {}}`, "'input' is required and may not be empty"},
		{"unknown agent", "v/ops/agent/request", `{"agentId": "ghost", "input": {"q": 1}}`, "Agent not found or terminated: ghost"},
		{"bad agent id", "v/ops/agent/create", `{"agentId": "../x"}`, "agentId \"../x\" is not valid"},
		{"unknown session on chat", "v/ops/agent/chat", `{"agentId": "a1", "sessionId": "abcdef0123456789", "message": "hi"}`, "Unknown sessionId abcdef0123456789"},
		{"bad session id", "v/ops/agent/chat", `{"agentId": "a1", "sessionId": "zz", "message": "hi"}`, "is not a session id (8 to 64 hex digits"},
		{"a session id too short", "v/ops/agent/request", `{"agentId": "a1", "sessionId": "abcdef", "input": {"q": 1}}`, "sessionId \"abcdef\" is not a session id (8 to 64 hex digits"},
		{"a bad session id to trigger", "v/ops/agent/trigger", `{"agentId": "a1", "sessionId": "xyz"}`, "sessionId \"xyz\" is not a session id"},
		{"complete-task outside a run", "v/ops/agent/complete-task", `{"result": 1}`, "agent:completeTask requires task scope"},
		{"fail-task outside a run", "v/ops/agent/fail-task", `{"error": "x"}`, "agent:failTask requires task scope"},
		{"bad task id", "v/ops/agent/cancel-task", `{"agentId": "a1", "taskId": "nope"}`, "Invalid taskId format: nope"},
		{"unknown task", "v/ops/agent/cancel-task", `{"agentId": "a1", "taskId": "0x0000000000000000000000000000abcd"}`, "Task not found"},
		{"unknown template", "v/ops/agent/create", `{"agentId": "a2", "config": "template:nope"}`, "Could not resolve config reference: template:nope"},
		{"unresolvable config", "v/ops/agent/create", `{"agentId": "a2", "config": "w/nothing/here"}`, "Could not resolve config reference: w/nothing/here"},
		{"a skill source with a short asset id", "v/ops/agent/from-skills", `{"agentId": "a5", "skills": ["a/deadbeef"]}`, "Skill source \"a/deadbeef\" is no asset reference: a/ takes an asset id of 64 hex digits"},
		{"a skill source on the server's files", "v/ops/agent/from-skills", `{"agentId": "a5", "skills": ["file:///etc/passwd"]}`, "cannot be read on this venue"},
		{"bad wait", "v/ops/agent/trigger", `{"agentId": "a1", "wait": "soon"}`, "input.wait"},
		{"an operation that is no reference", "v/ops/agent/create", `{"agentId": "a3", "config": {"operation": 123}}`, "config.operation must be the transition's operation reference, a string"},
		{"an update to an operation that is no reference", "v/ops/agent/update", `{"agentId": "a1", "config": {"operation": ["x"]}}`, "config.operation must be"},
		{"from-skills with an operation that is no reference", "v/ops/agent/from-skills", `{"agentId": "a4", "config": {"operation": 5}, "skills": [{"text": "---\nname: s\ndescription: d\n---\nbody"}]}`, "config.operation must be"},
		{"from-skills with an operation of the wrong type", "v/ops/agent/from-skills", `{"agentId": "a4", "operation": {}, "skills": [{"text": "---\nname: s\ndescription: d\n---\nbody"}]}`, "input.operation: got object, want string"},
	} {
		t.Run(tc.name, func(t *testing.T) { c.refused(t, tc.op, tc.input, tc.want) })
	}
	if after := string(c.read(t, "g/a1")); after != before {
		t.Fatalf("a refused call changed the agent:\n%s\n%s", before, after)
	}
	t.Run("operations on a TERMINATED agent", func(t *testing.T) {
		c.out(t, "v/ops/agent/delete", `{"agentId": "a1"}`)
		for _, op := range []string{"chat", "message", "trigger", "suspend", "resume"} {
			c.refused(t, "v/ops/agent/"+op, `{"agentId": "a1", "message": "x"}`, "Agent not found or terminated: a1")
		}
	})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// TestAgents_RunInFlight: while a run is in flight a second chat on its
// session and create-with-overwrite are refused, and nothing changes.
func TestAgents_RunInFlight(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "slow", "config": `+scripted+`}`)
	sid := c.out(t, "v/ops/agent/message", `{"agentId": "slow", "message": "open"}`)["sessionId"].(string)
	eventually(t, "the first message is consumed", func() bool {
		return c.status(t, "slow") == "SLEEPING" && string(c.read(t, "g/slow/sessions/"+sid+"/pending")) == "[]"
	})
	done := make(chan map[string]any)
	go func() {
		r := c.run(t, "v/ops/agent/chat", `{"agentId": "slow", "sessionId": "`+sid+`", "message": {"delay": 600}}`)
		var m map[string]any
		json.Unmarshal(r.body, &m)
		done <- m
	}()
	eventually(t, "the agent is RUNNING", func() bool { return c.status(t, "slow") == "RUNNING" })
	before := string(c.read(t, "g/slow/config"))
	c.refused(t, "v/ops/agent/chat", `{"agentId": "slow", "sessionId": "`+sid+`", "message": "me too"}`, "A chat is already in flight on session "+sid)
	c.refused(t, "v/ops/agent/create", `{"agentId": "slow", "config": {"model": "x"}, "overwrite": true}`,
		"Cannot update agent slow: currently RUNNING. Wait for the active transition to finish, or call agent:cancelTask first.")
	if after := string(c.read(t, "g/slow/config")); after != before {
		t.Fatalf("config changed: %s → %s", before, after)
	}
	if first := <-done; first["sessionId"] != sid || first["response"] == nil {
		t.Fatalf("first chat: %v", first)
	}
	if c.status(t, "slow") != "SLEEPING" {
		t.Fatal("the agent did not go back to sleep")
	}
}

// TestAgents_SuspendedMidRun: an agent suspended while its cycle runs and
// resumed before the cycle ends is RUNNING, not SLEEPING beside its run;
// until the run ends a state update or an overwrite, which the run's commit
// would undo, is refused, while a config update is kept.
func TestAgents_SuspendedMidRun(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "mid", "config": `+scripted+`, "state": {"orig": 1}}`)
	task := c.out(t, "v/ops/agent/request", `{"agentId": "mid", "input": {"delay": 1500}, "timeout": 0}`)["id"].(string)
	eventually(t, "the transition runs", func() bool { return c.transitionRunning(t) })
	c.refused(t, "v/ops/agent/update", `{"agentId": "mid", "state": {"upd": 1}}`, "Cannot update agent mid: currently RUNNING")
	c.out(t, "v/ops/agent/update", `{"agentId": "mid", "config": {"model": "m2"}}`)
	if out := c.out(t, "v/ops/agent/suspend", `{"agentId": "mid"}`); out["status"] != "SUSPENDED" {
		t.Fatalf("suspend: %v", out)
	}
	unfinished := "Cannot update agent mid: SUSPENDED, but the transition it was running has not finished"
	c.refused(t, "v/ops/agent/update", `{"agentId": "mid", "state": {"upd": 2}}`, unfinished)
	c.refused(t, "v/ops/agent/create", `{"agentId": "mid", "config": {"model": "x"}, "overwrite": true}`, unfinished)
	if out := c.out(t, "v/ops/agent/resume", `{"agentId": "mid"}`); out["status"] != "RUNNING" {
		t.Fatalf("resume during the cycle: %v, want RUNNING", out)
	}
	c.refused(t, "v/ops/agent/create", `{"agentId": "mid", "config": {"model": "x"}, "overwrite": true}`, "currently RUNNING")
	if out := c.out(t, "v/ops/grid/job-result", `{"id": "`+task+`", "timeout": 10000}`); out["run"] != 1.0 {
		t.Fatalf("the task: %v", out)
	}
	eventually(t, "the agent sleeps", func() bool { return c.status(t, "mid") == "SLEEPING" })
	if st := string(c.read(t, "g/mid/state")); !jsonSame(json.RawMessage(st), json.RawMessage(`{"orig": 1, "runs": 1}`)) {
		t.Fatalf("state %s, want the run's", st)
	}
	if model := string(c.read(t, "g/mid/config/model")); model != `"m2"` {
		t.Fatalf("the config update made during the run was lost: model %s", model)
	}

	t.Run("a cycle that ends while suspended", func(t *testing.T) {
		task := c.out(t, "v/ops/agent/request", `{"agentId": "mid", "input": {"delay": 800}, "timeout": 0}`)["id"].(string)
		eventually(t, "the transition runs", func() bool { return c.transitionRunning(t) })
		c.out(t, "v/ops/agent/suspend", `{"agentId": "mid"}`)
		c.out(t, "v/ops/grid/job-result", `{"id": "`+task+`", "timeout": 10000}`)
		eventually(t, "the run's lease is ended", func() bool {
			return c.run(t, "v/ops/agent/update", `{"agentId": "mid", "state": {"upd": 3}}`).status < 400
		})
		if st := string(c.read(t, "g/mid/state")); st != `{"upd":3}` {
			t.Fatalf("state %s", st)
		}
		if out := c.out(t, "v/ops/agent/resume", `{"agentId": "mid"}`); out["status"] != "SLEEPING" {
			t.Fatalf("resume after the cycle: %v", out)
		}
		if c.status(t, "mid") != "SLEEPING" {
			t.Fatal("not SLEEPING")
		}
	})
}

// TestAgents_ForkKeepsTheTransition: a fork's config is laid over the
// source's as given, so a fork that names no operation keeps the source's
// transition rather than getting the default LLM one (which would call a
// provider with the owner's key).
func TestAgents_ForkKeepsTheTransition(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "src", "config": `+scripted+`}`)
	for _, cfg := range []string{`{}`, `{"model": "m9"}`, `{"operation": null}`} {
		c.out(t, "v/ops/agent/fork", `{"sourceId": "src", "agentId": "f", "overwrite": true, "config": `+cfg+`}`)
		op := string(c.read(t, "g/f/config/operation"))
		if cfg == `{"operation": null}` {
			if op != `"v/ops/llmagent/chat"` {
				t.Fatalf("config %s: operation %s, want the default", cfg, op)
			}
			continue
		}
		if op != `"v/ops/transition/scripted"` {
			t.Fatalf("config %s: operation %s, want the source's", cfg, op)
		}
	}
	c.refused(t, "v/ops/agent/fork", `{"sourceId": "src", "agentId": "g", "config": {"operation": 7}}`, "config.operation must be the transition's operation reference")
}

// TestAgents_ConfigDefaults: an agent's config holds what the
// specification's record does, its transition, model and system prompt,
// however little the create named; the model only where the default
// transition calls a provider itself.
func TestAgents_ConfigDefaults(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	for _, tc := range []struct {
		name, config, want string
	}{
		{"no config", ``, `{"operation":"v/ops/llmagent/chat","model":"` + agent.DefaultModel + `","systemPrompt":""}`},
		{"a model", `{"model": "m1", "systemPrompt": "hi"}`, `{"operation":"v/ops/llmagent/chat","model":"m1","systemPrompt":"hi"}`},
		{"a model of its own operation", `{"llmOperation": "v/ops/x"}`, `{"operation":"v/ops/llmagent/chat","llmOperation":"v/ops/x","systemPrompt":""}`},
		{"another transition", `{"operation": "v/ops/transition/scripted"}`, `{"operation":"v/ops/transition/scripted","systemPrompt":""}`},
		{"the minimal template", `"template:minimal"`, `{"operation":"v/ops/llmagent/chat","provider":"openai","model":"` + agent.DefaultModel + `","systemPrompt":"You are a helpful assistant. Answer briefly.","tools":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `{"agentId": "d", "overwrite": true}`
			if tc.config != "" {
				in = `{"agentId": "d", "overwrite": true, "config": ` + tc.config + `}`
			}
			c.out(t, "v/ops/agent/create", in)
			var got, want map[string]any
			if err := json.Unmarshal(c.read(t, "g/d/config"), &got); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("config %v, want %v", got, want)
			}
		})
	}
}

// TestAgents_SurviveRestart: an agent's config, sessions, pending messages,
// tasks and timeline are in the store, so a restarted venue carries on.
func TestAgents_SurviveRestart(t *testing.T) {
	for _, st := range sqltest.Stores(t) {
		t.Run(st.Name, func(t *testing.T) {
			store := st.DSN
			if store == "" {
				store = t.TempDir() + "/venue.db" // durable, unlike the default temporary store
			}
			surviveRestart(t, store)
		})
	}
}

func surviveRestart(t *testing.T, store string) {
	sameURL := func(c *Config) { c.URL, c.Auth.Anonymous = "http://venue.test", "write" } // the anonymous DID derives from it
	m := MustRunMain(t, store, sameURL)
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "keeper", "config": `+scripted+`}`)
	c.out(t, "v/ops/agent/request", `{"agentId": "keeper", "input": {"n": 1}}`)
	c.out(t, "v/ops/agent/suspend", `{"agentId": "keeper"}`)
	sid := c.out(t, "v/ops/agent/message", `{"agentId": "keeper", "message": "while you were out"}`)["sessionId"].(string)
	// A task queued before the restart, and one whose run the restart cuts
	// short: their jobs stay open and end with the agents' results.
	queued := c.out(t, "v/ops/agent/request", `{"agentId": "keeper", "input": {"n": "queued"}, "timeout": 0}`)["id"].(string)
	c.out(t, "v/ops/agent/create", `{"agentId": "busy", "config": `+scripted+`}`)
	cut := c.out(t, "v/ops/agent/request", `{"agentId": "busy", "input": {"n": "cut", "delay": 1000}, "timeout": 0}`)["id"].(string)
	eventually(t, "busy runs", func() bool { return c.status(t, "busy") == "RUNNING" })
	before := c.out(t, "v/ops/agent/info", `{"agentId": "keeper"}`)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = MustRunMain(t, store, sameURL)
	c = newClient(m)
	after := c.out(t, "v/ops/agent/info", `{"agentId": "keeper"}`)
	if !jsonSame(mustJSON(before), mustJSON(after)) || after["status"] != "SUSPENDED" || after["timelineLength"] != 1.0 || after["tasks"] != 1.0 {
		t.Fatalf("before %v, after %v", before, after)
	}
	if p := string(c.read(t, "g/keeper/sessions/"+sid+"/pending")); !strings.Contains(p, "while you were out") {
		t.Fatalf("pending %s", p)
	}
	if out := c.out(t, "v/ops/grid/job-result", `{"id": "`+cut+`", "timeout": 10000}`); !jsonSame(mustJSON(out["echo"]), json.RawMessage(`{"n":"cut","delay":1000}`)) {
		t.Fatalf("the run the restart cut short: %v", out)
	}
	eventually(t, "busy sleeps again", func() bool { return c.status(t, "busy") == "SLEEPING" })
	c.out(t, "v/ops/agent/resume", `{"agentId": "keeper"}`)
	eventually(t, "the message is consumed after the restart", func() bool {
		return string(c.read(t, "g/keeper/sessions/"+sid+"/pending")) == "[]"
	})
	if out := c.out(t, "v/ops/grid/job-result", `{"id": "`+queued+`", "timeout": 10000}`); !jsonSame(mustJSON(out["echo"]), json.RawMessage(`{"n":"queued"}`)) {
		t.Fatalf("the task queued before the restart: %v", out)
	}
	out := c.out(t, "v/ops/agent/request", `{"agentId": "keeper", "input": {"n": 2}}`)
	if out["run"] != 4.0 {
		t.Fatalf("state did not carry over: %v", out)
	}
}
