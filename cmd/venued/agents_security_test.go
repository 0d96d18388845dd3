package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
	"github.com/gridvenue/venue/tools/llmstub"
)

// TestAgents_StateIsTheEngines: g/<agentId>/ is written by the agent
// operations only. A user who could write an agent's caps could name
// another user's DID in them and have the agent act on that user's data;
// one who could write a record directly would skip the checks of create.
// So the ordinary lattice writes refuse every path under g/, and the
// agent is as it was.
func TestAgents_StateIsTheEngines(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		alice, aliceU := asUser(t, m)
		bob, _ := asUser(t, m)
		mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "alice-note"}`))
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/caps", "value": [{"with": "`+aliceU.DID+`/w/notes", "can": "crud/read"}]}`))
		bob.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`, "caps": [{"with": "w/x", "can": "crud/read"}]}`)
		before := string(bob.read(t, "g/bot"))
		forged := `[{"with": "` + aliceU.DID + `/w/notes", "can": "crud/read"}]`
		for _, tc := range []struct{ name, op, input string }{
			{"write the caps", "v/ops/core/write", `{"path": "g/bot/caps", "value": ` + forged + `}`},
			{"write the whole record", "v/ops/core/write", `{"path": "g/bot", "value": {"status": "SLEEPING", "caps": ` + forged + `}}`},
			{"copy into the caps", "v/ops/core/copy", `{"from": "w/caps", "to": "g/bot/caps"}`},
			{"append to the caps", "v/ops/core/append", `{"path": "g/bot/caps", "value": {"with": "` + aliceU.DID + `", "can": "*"}}`},
			{"add a task", "v/ops/core/write", `{"path": "g/bot/tasks/0x0000000000000000000000000000abcd", "value": {"input": 1}}`},
			{"set the status", "v/ops/core/write", `{"path": "g/bot/status", "value": "RUNNING"}`},
			{"append to the timeline", "v/ops/core/append", `{"path": "g/bot/timeline", "value": {"forged": true}}`},
			{"write the lease", "v/ops/core/write", `{"path": "g/bot/lease", "value": 1}`},
			{"delete the sessions", "v/ops/core/delete", `{"path": "g/bot/sessions"}`},
			{"delete the agent", "v/ops/core/delete", `{"path": "g/bot"}`},
			{"write the state", "v/ops/core/write", `{"path": "g/bot/state", "value": {"runs": 99}}`},
			{"make an agent without create", "v/ops/core/write", `{"path": "g/made/status", "value": "SLEEPING"}`},
		} {
			t.Run("refuses to "+tc.name, func(t *testing.T) {
				r := bob.run(t, tc.op, tc.input)
				if r.status/100 == 2 || !strings.Contains(string(r.body), "agent operations") {
					t.Fatalf("%d %s", r.status, r.body)
				}
			})
		}
		if after := string(bob.read(t, "g/bot")); after != before {
			t.Fatalf("the agent changed:\n%s\n%s", before, after)
		}
		if r := bob.run(t, "v/ops/agent/info", `{"agentId": "made"}`); r.status == 200 {
			t.Fatalf("a written record became an agent: %s", r.body)
		}
	})
}

// forge rewrites row rel of agent id of owner as only the agent engine
// can, standing for a record written before g/ was the engine's alone.
func forge(t *testing.T, m *Main, owner, id, rel string, edit func(cur json.RawMessage) json.RawMessage) {
	t.Helper()
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: owner})
	err := m.engine.UpdateTree(ctx, "g/"+id+"/"+rel, runtime.Fold{}, func(cur runtime.Tree) (map[string]json.RawMessage, error) {
		return map[string]json.RawMessage{"": edit(cur.Value)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgents_TasksBelongToTheirAgent: a task's job is ended only by the
// agent it was sent to. Bob's agent holding Alice's task job id (in a
// record forged before g/ was closed to writes) neither completes nor
// cancels Alice's job.
func TestAgents_TasksBelongToTheirAgent(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		alice, _ := asUser(t, m)
		bob, bobU := asUser(t, m)
		alice.out(t, "v/ops/agent/create", `{"agentId": "helper", "config": `+scripted+`}`)
		alice.out(t, "v/ops/agent/suspend", `{"agentId": "helper"}`)
		job := alice.out(t, "v/ops/agent/request", `{"agentId": "helper", "input": {"secret": "alice-task"}, "timeout": 0}`)["id"].(string)
		steal := func(t *testing.T, id string) {
			bob.out(t, "v/ops/agent/create", `{"agentId": "`+id+`", "config": `+scripted+`}`)
			forge(t, m, bobU.DID, id, "tasks", func(json.RawMessage) json.RawMessage {
				return mustJSON(map[string]any{job: map[string]any{"jobId": job, "input": map[string]any{"stolen": true, "defer": id == "canceller"},
					"status": "PENDING", "created": 1}})
			})
		}
		t.Run("bob's agent completing the task leaves alice's job", func(t *testing.T) {
			steal(t, "thief")
			bob.out(t, "v/ops/agent/trigger", `{"agentId": "thief"}`)
			time.Sleep(100 * time.Millisecond)
			if j := taskJob(t, alice, job); j.Status != "STARTED" && j.Status != "PENDING" {
				t.Fatalf("alice's job %s %s %s", j.Status, j.Output, j.Error)
			}
		})
		t.Run("bob cancelling the task leaves alice's job", func(t *testing.T) {
			steal(t, "canceller")
			bob.run(t, "v/ops/agent/cancel-task", `{"agentId": "canceller", "taskId": "`+job+`"}`)
			bob.run(t, "v/ops/agent/delete", `{"agentId": "canceller"}`)
			time.Sleep(100 * time.Millisecond)
			if j := taskJob(t, alice, job); j.Status != "STARTED" && j.Status != "PENDING" {
				t.Fatalf("alice's job %s %s", j.Status, j.Error)
			}
		})
		alice.out(t, "v/ops/agent/resume", `{"agentId": "helper"}`)
		res := alice.out(t, "v/ops/grid/job-result", `{"id": "`+job+`", "timeout": 5000}`)
		if !strings.Contains(string(mustJSON(res)), "alice-task") {
			t.Fatalf("alice's task ended with %v", res)
		}
	})
}

// taskJob reads a job record.
func taskJob(t *testing.T, c *client, id string) jobJSON {
	t.Helper()
	var j jobJSON
	c.do(t, "GET", "/api/v1/jobs/"+id, nil).json(t, &j)
	return j
}

// TestAgents_DelegatedCapsExpire: a cap beyond the owner's namespace lasts
// as long as the UCAN that proved it. The agent holds it, with its expiry
// shown by info, until the earliest exp of the chain; then it is denied.
func TestAgents_DelegatedCapsExpire(t *testing.T) {
	stub := llmstub.New(stubKey)
	stubVenues(t, stub, func(t *testing.T, m *Main, base string) {
		alice, aliceU := asUser(t, m)
		bob, bobU := asUser(t, m)
		alice.withKey(t)
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/private", "value": "bob-private"}`))
		// Bob's grant to Alice lasts the hour; her proof to the venue,
		// delegated on from it, lasts 2 s: the chain's earliest exp.
		cap := venue.Capability{With: bobU.DID + "/w/private", Can: venue.AbilityRead}
		root := bobU.grant(t, aliceU.DID, cap)
		exp := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
		short, err := ucan.Issue(aliceU.Key, aliceU.DID, aliceU.DID, []venue.Capability{cap}, []string{root}, exp)
		if err != nil {
			t.Fatal(err)
		}
		r := alice.run(t, "v/ops/agent/create", `{"agentId": "lender", "config": {"operation": "v/ops/llmagent/chat", "baseUrl": "`+base+`",
			"model": "m1", "tools": ["v/ops/core/read"]}, "caps": [{"with": "`+cap.With+`", "can": "crud/read"}, {"with": "w", "can": "crud/read"}]}`,
			"X-Covia-Ucans", short)
		mustOK(t, r)
		info := alice.out(t, "v/ops/agent/info", `{"agentId": "lender"}`)
		caps := info["caps"].([]any)
		if got := caps[0].(map[string]any)["expires"]; got != float64(exp.UnixMilli()) {
			t.Fatalf("caps %v, want the foreign one to expire at %d", caps, exp.UnixMilli())
		}
		if _, ok := caps[1].(map[string]any)["expires"]; ok {
			t.Fatalf("a cap in the owner's namespace expires: %v", caps)
		}
		read := func(t *testing.T) string {
			from := len(stub.Requests())
			stub.Add(toolCall("core_read", `{"path": "`+cap.With+`"}`), llmstub.Reply{Text: "done"})
			alice.out(t, "v/ops/agent/request", `{"agentId": "lender", "input": "read bob's note", "timeout": 10000}`)
			return requestBodies(stub, from)
		}
		if sent := read(t); !strings.Contains(sent, "bob-private") {
			t.Fatalf("the agent could not use its cap before it expired: %s", sent)
		}
		time.Sleep(time.Until(exp) + 100*time.Millisecond)
		if sent := read(t); strings.Contains(sent, "bob-private") || !strings.Contains(sent, "Capability denied") {
			t.Fatalf("the agent used an expired cap: %s", sent)
		}
		info = alice.out(t, "v/ops/agent/info", `{"agentId": "lender"}`)
		if c := info["caps"].([]any)[0].(map[string]any); c["expired"] != true {
			t.Fatalf("info does not say the cap expired: %v", info["caps"])
		}
	})
}
