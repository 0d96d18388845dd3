package main

import (
	"strings"
	"testing"
)

// TestIsolation_Agents: every agent operation, as another user and as the
// anonymous caller, against alice's agent, its task and its session. An
// agent id names an agent in the caller's own namespace, so alice's agent
// is one the others do not have: each answer is checked (status and
// message) and checked again against its twin about an agent, task or
// session that does not exist anywhere; they must read the same.
func TestIsolation_Agents(t *testing.T) {
	m := MustRunMain(t, "")
	alice, _ := asUser(t, m)
	bob, _ := asUser(t, m)
	anon := newClient(m)
	mustOK(t, alice.run(t, "v/ops/agent/create", `{"agentId": "helper", "config": {"operation": "v/ops/transition/scripted", "model": "none", "systemPrompt": "alice-agent-prompt"}}`))
	task := alice.out(t, "v/ops/agent/request", `{"agentId": "helper", "input": {"defer": true, "q": "alice-task"}, "timeout": 0}`)
	taskID, sid := task["id"].(string), task["sessionId"].(string)
	eventually(t, "alice's task is pending", func() bool { return alice.status(t, "helper") == "SLEEPING" })
	before := alice.run(t, "v/ops/agent/info", `{"agentId": "helper"}`)
	mustOK(t, before)
	for _, c := range []*client{bob, anon} {
		mustOK(t, c.run(t, "v/ops/agent/create", `{"agentId": "mine", "config": {"operation": "v/ops/transition/scripted", "model": "none", "systemPrompt": "x"}}`))
	}
	ghost := strings.NewReplacer("helper", "nobody", taskID, ghostJobs[0], sid, strings.Repeat("0", len(sid)))
	const missing, gone = "Operation failed: Agent not found: helper", "Operation failed: Agent not found or terminated: helper"
	for _, who := range []struct {
		name string
		c    *client
	}{{"other user", bob}, {"anonymous", anon}} {
		for _, op := range []struct {
			name, input string
			status      int
			want        string
		}{
			{"info", `{"agentId": "helper"}`, 404, missing},
			{"update", `{"agentId": "helper", "config": {"systemPrompt": "hijacked"}}`, 404, gone},
			{"suspend", `{"agentId": "helper"}`, 404, gone},
			{"resume", `{"agentId": "helper"}`, 404, gone},
			{"trigger", `{"agentId": "helper", "wait": false}`, 404, gone},
			{"message", `{"agentId": "helper", "message": "hijack"}`, 404, gone},
			{"message", `{"agentId": "helper", "sessionId": "` + sid + `", "message": "hijack"}`, 404, gone},
			{"request", `{"agentId": "helper", "input": {"q": "hijack"}, "timeout": 0}`, 404, gone},
			{"chat", `{"agentId": "helper", "message": "hijack"}`, 404, gone},
			{"chat", `{"agentId": "mine", "sessionId": "` + sid + `", "message": "hijack"}`, 404, "Operation failed: Unknown sessionId " + sid + " on agent mine"},
			{"cancel-task", `{"agentId": "helper", "taskId": "` + taskID + `"}`, 404, gone},
			{"cancel-task", `{"agentId": "mine", "taskId": "` + taskID + `"}`, 404, "Operation failed: Task not found: " + taskID},
			{"fork", `{"sourceId": "helper", "agentId": "copy"}`, 404, "Operation failed: Source agent not found: helper"},
			{"context", `{"agentId": "helper"}`, 404, gone},
			{"delete", `{"agentId": "helper", "remove": true}`, 404, missing},
			{"list", `{"includeTerminated": true}`, 200, `{"agents":[{"agentId":"mine"`},
		} {
			t.Run(who.name+" and "+op.name+" "+op.input, func(t *testing.T) {
				r := who.c.run(t, "v/ops/agent/"+op.name, op.input)
				got := string(r.body)
				if op.status != 200 {
					got = r.errorText(t)
				}
				if r.status != op.status || !strings.HasPrefix(got, op.want) {
					t.Fatalf("%d %s, want %d with %q", r.status, r.body, op.status, op.want)
				}
				for _, p := range []string{"alice-agent-prompt", "alice-task", `"helper"`} {
					if strings.Contains(string(r.body), p) {
						t.Fatalf("leaks alice's agent: %d %s", r.status, r.body)
					}
				}
				twin := who.c.run(t, "v/ops/agent/"+op.name, ghost.Replace(op.input))
				if twin.status != r.status || string(twin.body) != ghost.Replace(string(r.body)) {
					t.Fatalf("the answer differs from its twin's about nothing:\n%d %s\n%d %s", r.status, r.body, twin.status, twin.body)
				}
			})
		}
	}
	t.Run("alice's agent is untouched", func(t *testing.T) {
		after := alice.run(t, "v/ops/agent/info", `{"agentId": "helper"}`)
		if after.status != 200 || string(after.body) != string(before.body) {
			t.Fatalf("before %s\nafter %s", before.body, after.body)
		}
		if r := alice.do(t, "GET", "/api/v1/jobs/"+taskID, nil); r.status != 200 || !strings.Contains(string(r.body), `"status":"STARTED"`) {
			t.Fatalf("alice's task: %d %s", r.status, r.body)
		}
		if p := alice.read(t, "g/helper/sessions/"+sid+"/pending"); strings.Contains(string(p), "hijack") {
			t.Fatalf("a message reached alice's session: %s", p)
		}
	})
}
