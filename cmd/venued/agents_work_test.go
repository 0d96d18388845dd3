package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// within runs op in the background and returns its reply, failing the test
// if it takes longer than d: a call that hangs must not hang the suite.
func within(t *testing.T, d time.Duration, c *client, op, input string) reply {
	t.Helper()
	done := make(chan reply, 1)
	go func() { done <- c.do(t, "POST", "/api/v1/run", `{"operation": "`+op+`", "input": `+input+`}`) }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("%s %s did not answer within %v", op, input, d)
		return reply{}
	}
}

// TestAgents_UnresolvedTaskBlocksNothing: a task the transition leaves
// unresolved stays queued, but other sessions' work goes on: a chat on
// another session is answered and a message consumed.
func TestAgents_UnresolvedTaskBlocksNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"defer": true}, "timeout": 0}`)
		eventually(t, "the deferred task's run ends", func() bool { return c.status(t, "bot") == "SLEEPING" })
		r := within(t, 5*time.Second, c, "v/ops/agent/chat", `{"agentId": "bot", "message": "still there?"}`)
		if r.status != 200 || !strings.Contains(string(r.body), "still there?") {
			t.Fatalf("chat %d %s", r.status, r.body)
		}
		sid := c.out(t, "v/ops/agent/message", `{"agentId": "bot", "message": "note"}`)["sessionId"].(string)
		eventually(t, "the message is consumed", func() bool { return string(c.read(t, "g/bot/sessions/"+sid+"/pending")) == "[]" })
		// Watched in one read: a wake after the run (another look at the
		// deferred task) may find the agent RUNNING again between two.
		eventually(t, "the run ends with the deferred task still queued", func() bool {
			info := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)
			return info["tasks"] == 1.0 && info["status"] == "SLEEPING"
		})
	})
}

// TestAgents_ChatEndsWhenTheAgentStops: a chat waiting on an agent that is
// suspended (by another item's failure, or by agent:suspend) or deleted
// gets an error at once, not a hang.
func TestAgents_ChatEndsWhenTheAgentStops(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		for _, tc := range []struct{ name, stop, want string }{
			{"another item fails the run", "", "boom"},
			{"suspend", "v/ops/agent/suspend", "suspended"},
			{"delete", "v/ops/agent/delete", "deleted"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := strings.ReplaceAll(tc.name, " ", "-")
				c.out(t, "v/ops/agent/create", `{"agentId": "`+id+`", "config": `+scripted+`}`)
				// The first task keeps the run busy until the chat waits
				// (checked below, however loaded the machine); only then
				// comes the item that fails the run.
				c.out(t, "v/ops/agent/request", `{"agentId": "`+id+`", "input": {"delay": 3000}, "timeout": 0}`)
				if tc.stop == "" {
					c.out(t, "v/ops/agent/request", `{"agentId": "`+id+`", "input": {"crash": "boom"}, "timeout": 0}`)
				}
				eventually(t, "the agent runs", func() bool { return c.status(t, id) == "RUNNING" })
				done := make(chan reply, 1)
				go func() {
					done <- c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/agent/chat", "input": {"agentId": "`+id+`", "message": "hi"}}`)
				}()
				eventually(t, "the chat waits", func() bool { return chatWaits(t, c, id) })
				if tc.stop != "" {
					c.out(t, tc.stop, `{"agentId": "`+id+`"}`)
				}
				select {
				case r := <-done:
					if r.status/100 == 2 || !strings.Contains(string(r.body), tc.want) {
						t.Fatalf("chat %d %s, want an error with %q", r.status, r.body, tc.want)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("the chat still waits on a stopped agent")
				}
			})
		}
	})
}

// chatWaits reports whether a message of a chat waits in one of the
// agent's sessions.
func chatWaits(t *testing.T, c *client, id string) bool {
	var sessions map[string]struct {
		Pending []json.RawMessage `json:"pending"`
	}
	if json.Unmarshal(c.read(t, "g/"+id+"/sessions"), &sessions) != nil {
		return false
	}
	for _, s := range sessions {
		if len(s.Pending) > 0 {
			return true
		}
	}
	return false
}

// TestAgents_SuspendLetsTheCycleInFlightAnswer: a suspension lets the
// cycle in flight commit, so the chat whose message it consumes gets the
// answer, not an error.
func TestAgents_SuspendLetsTheCycleInFlightAnswer(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		done := make(chan reply, 1)
		go func() {
			done <- c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/agent/chat", "input": {"agentId": "bot", "message": {"delay": 500}}}`)
		}()
		// In flight: the cycle has taken the message and runs its
		// transition (RUNNING alone comes before the cycle reads the
		// session, and a suspension then rightly leaves the message
		// unread).
		eventually(t, "the cycle runs its transition", func() bool { return c.transitionRunning(t) })
		c.out(t, "v/ops/agent/suspend", `{"agentId": "bot"}`)
		select {
		case r := <-done:
			if r.status != 200 || !strings.Contains(string(r.body), `"response"`) {
				t.Fatalf("chat %d %s", r.status, r.body)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the chat was not answered")
		}
		if st := c.status(t, "bot"); st != "SUSPENDED" {
			t.Fatalf("status %s", st)
		}
	})
}

// TestAgents_RemovedAgentsRunCommitsNothing: a run in flight when its
// agent is removed and a new one made under the name leaves the new one
// untouched.
func TestAgents_RemovedAgentsRunCommitsNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"delay": 500}, "timeout": 0}`)
		eventually(t, "the agent runs", func() bool { return c.status(t, "bot") == "RUNNING" })
		c.out(t, "v/ops/agent/delete", `{"agentId": "bot", "remove": true}`)
		c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		time.Sleep(800 * time.Millisecond)
		info := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)
		if info["timelineLength"] != 0.0 || info["status"] != "SLEEPING" || string(c.read(t, "g/bot/state")) != "null" {
			t.Fatalf("the old run committed into the new agent: %v, state %s", info, c.read(t, "g/bot/state"))
		}
	})
}

// TestAgents_CancelledTasks: a task whose job was cancelled is dropped,
// not run, and cancel-task ends the job CANCELLED.
func TestAgents_CancelledTasks(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
		c.out(t, "v/ops/agent/suspend", `{"agentId": "bot"}`)
		t.Run("a job cancelled by PUT /jobs/{id}/cancel is not run", func(t *testing.T) {
			id := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"q": "cancelled"}, "timeout": 0}`)["id"].(string)
			mustOK(t, c.do(t, "PUT", "/api/v1/jobs/"+id+"/cancel", nil))
			c.out(t, "v/ops/agent/resume", `{"agentId": "bot"}`)
			eventually(t, "the task is dropped", func() bool { return c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`)["tasks"] == 0.0 })
			if tl := string(c.read(t, "g/bot/timeline")); strings.Contains(tl, "cancelled") {
				t.Fatalf("the cancelled task ran: %s", tl)
			}
			if j := taskJob(t, c, id); j.Status != "CANCELLED" {
				t.Fatalf("job %s", j.Status)
			}
		})
		t.Run("cancel-task ends the job CANCELLED", func(t *testing.T) {
			c.out(t, "v/ops/agent/suspend", `{"agentId": "bot"}`)
			id := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": {"q": 1}, "timeout": 0}`)["id"].(string)
			c.out(t, "v/ops/agent/cancel-task", `{"agentId": "bot", "taskId": "`+id+`"}`)
			if j := waitJob(t, c, id, "CANCELLED"); j.Error == "" {
				t.Fatalf("job %+v", j)
			}
		})
	})
}

// TestAgents_TaskJobOnlyThroughRequest: the task job's operation is
// agent:request's, and refuses to be invoked directly; a schema that does
// not compile never reaches the agent.
func TestAgents_TaskJobOnlyThroughRequest(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
	for _, tc := range []struct{ name, input, want string }{
		{"a bad responseSchema", `{"agentId": "bot", "input": {"q": 1}, "responseSchema": {"type": 12}}`, "responseSchema"},
		{"a good task", `{"agentId": "bot", "input": {"q": 1}}`, "v/ops/agent/request"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/agents/ops/task", "input": `+tc.input+`, "wait": true}`)
			var j jobJSON
			json.Unmarshal(r.body, &j)
			if j.Status == "COMPLETE" || !strings.Contains(j.Error+string(r.body), tc.want) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	if info := c.out(t, "v/ops/agent/info", `{"agentId": "bot"}`); info["status"] != "SLEEPING" || info["tasks"] != 0.0 || info["timelineLength"] != 0.0 {
		t.Fatalf("info %v", info)
	}
}

// TestAgents_RequestInputNeverEmpty: input may be no empty value, a blank
// string among them.
func TestAgents_RequestInputNeverEmpty(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	c.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`}`)
	for _, in := range []string{`""`, `"   "`, `"\n\t"`, `{}`, `[]`, `null`} {
		c.refused(t, "v/ops/agent/request", `{"agentId": "bot", "input": `+in+`}`, "'input' is required and may not be empty")
	}
	if out := c.out(t, "v/ops/agent/request", `{"agentId": "bot", "input": " x "}`); out["echo"] != " x " {
		t.Fatalf("%v", out)
	}
}

// TestAgents_CancelTaskToolName: cancel-task is agent_cancel_task as an
// MCP tool, and the old name agent_cancelTask still finds it.
func TestAgents_CancelTaskToolName(t *testing.T) {
	m := MustRunMain(t, "")
	sess := mcpSession(t, m, "")
	tools := toolNames(t, sess)
	if tools["agent_cancel_task"] == nil || tools["agent_cancelTask"] != nil {
		t.Fatalf("tools lack agent_cancel_task or still list agent_cancelTask")
	}
	res := callTool(t, sess, "agent_cancelTask", map[string]any{"agentId": "nobody", "taskId": "0x0000000000000000000000000000abcd"})
	if !strings.Contains(resultText(res), "Agent not found or terminated: nobody") {
		t.Fatalf("the old name: %s", resultText(res))
	}
}

// TestAgents_ListsEveryAgent: list is not cut at a page.
func TestAgents_ListsEveryAgent(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	m := MustRunMain(t, "")
	c := newClient(m)
	owner := m.engine.PublicCaller()
	ctx := venue.WithCaller(context.Background(), owner)
	const n = 1005
	for i := range n {
		err := m.engine.UpdateTree(ctx, fmt.Sprintf("g/a%04d", i), runtime.Fold{}, func(runtime.Tree) (map[string]json.RawMessage, error) {
			return map[string]json.RawMessage{"status": json.RawMessage(`"SLEEPING"`), "config": json.RawMessage(`{}`)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	out := c.out(t, "v/ops/agent/list", `{}`)
	if agents := out["agents"].([]any); len(agents) != n || out["total"] != float64(n) {
		t.Fatalf("listed %d of %d (total %v)", len(agents), n, out["total"])
	}
}

// TestAgents_StaleRunningIsNoRun: an agent left RUNNING with no run in
// this process (a crash left it) does not block create's overwrite on a
// single-node store; on a shared one it does until its lease is old, as
// another node may be running it.
func TestAgents_StaleRunningIsNoRun(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.out(t, "v/ops/agent/create", `{"agentId": "left", "config": `+scripted+`}`)
		owner := m.engine.PublicCaller().DID
		forge(t, m, owner, "left", "status", func(json.RawMessage) json.RawMessage { return json.RawMessage(`"RUNNING"`) })
		forge(t, m, owner, "left", "lease", func(json.RawMessage) json.RawMessage { return mustJSON(time.Now().UnixMilli()) })
		r := c.run(t, "v/ops/agent/create", `{"agentId": "left", "config": {"operation": "v/ops/transition/scripted", "model": "new"}, "overwrite": true}`)
		if m.store.Dialect() != "sqlite" {
			if r.status/100 == 2 || !strings.Contains(string(r.body), "currently RUNNING") {
				t.Fatalf("overwrite over another node's fresh run: %d %s", r.status, r.body)
			}
			return
		}
		var out map[string]any
		r.json(t, &out)
		if r.status != 200 || out["updated"] != true || out["status"] != "SLEEPING" || c.status(t, "left") != "SLEEPING" {
			t.Fatalf("overwrite over a stale RUNNING: %d %s", r.status, r.body)
		}
	})
}
