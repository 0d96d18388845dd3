package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAgents_FromSkillsAllOrNothing: from-skills checks everything before
// it writes anything, so a refusal leaves no skill behind; config is
// resolved as create resolves it, not nested.
func TestAgents_FromSkillsAllOrNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		good := func(name string) string {
			return `{"text": ` + string(mustJSON(strings.Replace(skillMD, "tidy-notes", name, 1))) + `}`
		}
		t.Run("a bad skill later in the list writes none", func(t *testing.T) {
			c.refused(t, "v/ops/agent/from-skills", `{"agentId": "a1", "operation": "v/ops/transition/scripted",
				"skills": [`+good("first-ok")+`, {"text": "no frontmatter"}]}`, "skills[1]")
			if v := c.read(t, "w/skills/first-ok"); v != nil {
				t.Fatalf("the first skill was written: %s", v)
			}
		})
		t.Run("an overwrite over a RUNNING agent writes none", func(t *testing.T) {
			c.out(t, "v/ops/agent/create", `{"agentId": "busy", "config": `+scripted+`}`)
			c.out(t, "v/ops/agent/request", `{"agentId": "busy", "input": {"delay": 800}, "timeout": 0}`)
			eventually(t, "busy runs", func() bool { return c.status(t, "busy") == "RUNNING" })
			c.refused(t, "v/ops/agent/from-skills", `{"agentId": "busy", "overwrite": true, "skills": [`+good("while-busy")+`]}`, "currently RUNNING")
			if v := c.read(t, "w/skills/while-busy"); v != nil {
				t.Fatalf("the skill was written: %s", v)
			}
		})
		t.Run("an existing agent without overwrite is left, and so are the skills", func(t *testing.T) {
			eventually(t, "busy sleeps", func() bool { return c.status(t, "busy") == "SLEEPING" })
			out := c.out(t, "v/ops/agent/from-skills", `{"agentId": "busy", "skills": [`+good("not-now")+`]}`)
			if out["created"] != false || out["updated"] != false || c.read(t, "w/skills/not-now") != nil {
				t.Fatalf("%v", out)
			}
		})
		t.Run("config is resolved like create's, the rest laid over it", func(t *testing.T) {
			out := c.out(t, "v/ops/agent/from-skills", `{"agentId": "w1", "config": "template:worker", "systemPrompt": "Mind the notes.",
				"skills": [`+good("tidy-notes")+`]}`)
			if out["created"] != true {
				t.Fatalf("%v", out)
			}
			cfg := c.out(t, "v/ops/agent/info", `{"agentId": "w1"}`)["config"].(map[string]any)
			if _, nested := cfg["config"]; nested || cfg["operation"] != "v/ops/llmagent/chat" || cfg["tools"] == nil ||
				cfg["systemPrompt"] != "Mind the notes." || !jsonSame(mustJSON(cfg["skills"]), json.RawMessage(`["w/skills/tidy-notes"]`)) {
				t.Fatalf("config %v", cfg)
			}
			c.out(t, "v/ops/agent/from-skills", `{"agentId": "w2", "config": {"operation": "v/ops/transition/scripted", "model": "inner"}, "skills": []}`)
			if cfg := c.out(t, "v/ops/agent/info", `{"agentId": "w2"}`)["config"].(map[string]any); cfg["model"] != "inner" || cfg["config"] != nil {
				t.Fatalf("config %v", cfg)
			}
		})
		t.Run("no skills gives importedSkills []", func(t *testing.T) {
			r := c.run(t, "v/ops/agent/from-skills", `{"agentId": "none", "operation": "v/ops/transition/scripted"}`)
			mustOK(t, r)
			if !strings.Contains(string(r.body), `"importedSkills":[]`) {
				t.Fatalf("%s", r.body)
			}
		})
	})
}
