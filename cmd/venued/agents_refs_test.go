package main

import (
	"strings"
	"testing"

	"github.com/gridvenue/venue/tools/llmstub"
)

// TestAgents_ConfigReferences: config given as an asset a/<hash>, as DID
// URLs (of an asset and of a workspace path), and another user's path
// refused; resume with autoWake false leaves the work queued.
func TestAgents_ConfigReferences(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		c, u := asUser(t, m)
		other, otherU := asUser(t, m)
		var id string
		c.do(t, "POST", "/api/v1/assets", `{"name": "bot config", "config": {"operation": "v/ops/transition/scripted", "model": "from-asset"}}`).json(t, &id)
		hash := strings.TrimPrefix(id, "0x")
		venueDID := m.engine.Identity().DID
		mustOK(t, c.run(t, "v/ops/core/write", `{"path": "w/agents/mine", "value": {"operation": "v/ops/transition/scripted", "model": "from-ws"}}`))
		mustOK(t, other.run(t, "v/ops/core/write", `{"path": "w/agents/theirs", "value": {"operation": "v/ops/transition/scripted", "model": "theirs"}}`))
		for _, tc := range []struct{ name, ref, model string }{
			{"asset", "a/" + hash, "from-asset"},
			{"DID URL of an asset", venueDID + "/a/" + hash, "from-asset"},
			{"DID URL of a workspace path", u.DID + "/w/agents/mine", "from-ws"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c.out(t, "v/ops/agent/create", `{"agentId": "ref", "overwrite": true, "config": "`+tc.ref+`"}`)
				cfg := c.out(t, "v/ops/agent/info", `{"agentId": "ref"}`)["config"].(map[string]any)
				if cfg["model"] != tc.model || cfg["operation"] != "v/ops/transition/scripted" {
					t.Fatalf("config %v", cfg)
				}
			})
		}
		t.Run("another user's path without a grant", func(t *testing.T) {
			c.refused(t, "v/ops/agent/create", `{"agentId": "theirs", "config": "`+otherU.DID+`/w/agents/theirs"}`, "Could not resolve config reference")
		})
		t.Run("resume with autoWake false leaves the work queued", func(t *testing.T) {
			c.out(t, "v/ops/agent/suspend", `{"agentId": "ref"}`)
			sid := c.out(t, "v/ops/agent/message", `{"agentId": "ref", "message": "later"}`)["sessionId"].(string)
			if out := c.out(t, "v/ops/agent/resume", `{"agentId": "ref", "autoWake": false}`); out["status"] != "SLEEPING" {
				t.Fatalf("resume %v", out)
			}
			if p := string(c.read(t, "g/ref/sessions/"+sid+"/pending")); !strings.Contains(p, "later") || c.status(t, "ref") != "SLEEPING" {
				t.Fatalf("pending %s", p)
			}
			c.out(t, "v/ops/agent/trigger", `{"agentId": "ref", "force": false}`)
			eventually(t, "the trigger consumes it", func() bool { return string(c.read(t, "g/ref/sessions/"+sid+"/pending")) == "[]" })
		})
	})
}

// TestAgents_FromSkillsChecks: from-skills needs both write access to the
// skillset and agent-create authority; an agent whose caps lack either,
// calling it as a tool, is refused and nothing is imported or created.
func TestAgents_FromSkillsChecks(t *testing.T) {
	stub := llmstub.New(stubKey)
	stubVenues(t, stub, func(t *testing.T, m *Main, base string) {
		c, _ := asUser(t, m)
		c.withKey(t)
		call := toolCall("agent_from_skills", `{"agentId": "made", "operation": "v/ops/transition/scripted", "skills": [{"text": `+string(mustJSON(skillMD))+`}]}`)
		for _, tc := range []struct{ name, caps, want string }{
			{"without agent/create", `[{"with": "w/skills", "can": "crud"}]`, "agent/create on"},
			{"without write to the skillset", `[{"with": "g", "can": "agent/create"}]`, "crud/write on"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c.out(t, "v/ops/agent/create", `{"agentId": "maker", "overwrite": true, "caps": `+tc.caps+`, "config": {"operation": "v/ops/llmagent/chat",
					"baseUrl": "`+base+`", "model": "m1", "tools": ["v/ops/agent/from-skills"]}}`)
				from := len(stub.Requests())
				stub.Add(call, llmstub.Reply{Text: "tried"})
				c.out(t, "v/ops/agent/request", `{"agentId": "maker", "input": "make an agent", "timeout": 10000}`)
				if sent := requestBodies(stub, from); !strings.Contains(sent, "Capability denied") || !strings.Contains(sent, tc.want) {
					t.Fatalf("the model was not told of the denial: %s", sent)
				}
				if r := c.run(t, "v/ops/agent/info", `{"agentId": "made"}`); r.status == 200 {
					t.Fatalf("the agent was made: %s", r.body)
				}
				if v := c.read(t, "w/skills"); v != nil {
					t.Fatalf("skills were imported: %s", v)
				}
			})
		}
	})
}
