package main

import (
	"strings"
	"testing"
)

// TestIsolation_Agents: the agent operations, as another user and as the
// anonymous caller, against a user's agent. It runs once the venue's
// catalog has agents (v/ops/agent/create), and skips before.
func TestIsolation_Agents(t *testing.T) {
	m := MustRunMain(t, "")
	if r := newClient(m).do(t, "GET", "/api/v1/operations/v/ops/agent/create", nil); r.status != 200 {
		t.Skip("this venue has no agent operations yet")
	}
	alice, _ := asUser(t, m)
	bob, _ := asUser(t, m)
	mustOK(t, alice.run(t, "v/ops/agent/create", `{"agentId": "helper", "config": {"systemPrompt": "alice-agent-prompt"}}`))
	before := alice.run(t, "v/ops/agent/info", `{"agentId": "helper"}`)
	mustOK(t, before)
	for _, who := range []struct {
		name string
		c    *client
	}{{"other user", bob}, {"anonymous", newClient(m)}} {
		for _, op := range []struct{ name, input string }{
			{"info", `{"agentId": "helper"}`},
			{"update", `{"agentId": "helper", "config": {"systemPrompt": "hijacked"}}`},
			{"suspend", `{"agentId": "helper"}`},
			{"resume", `{"agentId": "helper"}`},
			{"trigger", `{"agentId": "helper", "wait": false}`},
			{"message", `{"agentId": "helper", "message": "hijack"}`},
			{"request", `{"agentId": "helper", "input": {"q": "hijack"}, "timeout": 0}`},
			{"fork", `{"sourceId": "helper", "agentId": "copy"}`},
			{"context", `{"agentId": "helper"}`},
			{"delete", `{"agentId": "helper", "remove": true}`},
			{"list", `{}`},
		} {
			t.Run(who.name+" and "+op.name, func(t *testing.T) {
				r := who.c.run(t, "v/ops/agent/"+op.name, op.input)
				if strings.Contains(string(r.body), "alice-agent-prompt") {
					t.Fatalf("leaks alice's agent: %d %s", r.status, r.body)
				}
				if op.name == "list" && strings.Contains(string(r.body), `"helper"`) {
					t.Fatalf("lists alice's agent: %s", r.body)
				}
			})
		}
	}
	t.Run("alice's agent is untouched", func(t *testing.T) {
		after := alice.run(t, "v/ops/agent/info", `{"agentId": "helper"}`)
		if after.status != 200 || !strings.Contains(string(after.body), "alice-agent-prompt") || strings.Contains(string(after.body), "hijacked") ||
			strings.Contains(string(after.body), "TERMINATED") || strings.Contains(string(after.body), "SUSPENDED") {
			t.Fatalf("before %s\nafter %s", before.body, after.body)
		}
	})
}
