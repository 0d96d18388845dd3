package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

const skillMD = "---\nname: tidy-notes\ndescription: Keeps notes tidy\n---\n# Tidy notes\nSort the notes by date.\n"

// TestAgents_Skills imports SKILL.md files (inline and from an asset),
// creates an agent from skills, and uses the shipped templates.
func TestAgents_Skills(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		t.Run("import inline", func(t *testing.T) {
			out := c.out(t, "v/ops/skills/import", `{"text": `+string(mustJSON(skillMD))+`}`)
			if out["path"] != "w/skills/tidy-notes" || out["name"] != "tidy-notes" || out["existed"] != false {
				t.Fatalf("%v", out)
			}
			if v := string(c.read(t, "w/skills/tidy-notes/description")); v != `"Keeps notes tidy"` {
				t.Fatalf("%s", v)
			}
		})
		t.Run("import from an asset", func(t *testing.T) {
			text := strings.Replace(skillMD, "tidy-notes", "from-asset", 1)
			sum := sha256.Sum256([]byte(text))
			var id string
			c.do(t, "POST", "/api/v1/assets", `{"name": "skill", "content": {"contentType": "text/markdown", "sha256": "`+hex.EncodeToString(sum[:])+`"}}`).json(t, &id)
			c.do(t, "PUT", "/api/v1/assets/"+id+"/content", []byte(text))
			out := c.out(t, "v/ops/skills/import", `{"source": "a/`+strings.TrimPrefix(id, "0x")+`", "skillset": "w/team/skills"}`)
			if out["path"] != "w/team/skills/from-asset" {
				t.Fatalf("%v", out)
			}
		})
		for _, tc := range []struct{ name, input, want string }{
			{"both text and source", `{"text": "x", "source": "a/00"}`, "Give exactly one of 'source'"},
			{"no frontmatter", `{"text": "# hi"}`, "must start with a frontmatter block"},
			{"skillset outside the workspace", `{"text": "x", "skillset": "g/x"}`, "skillset must be a path in your workspace"},
			{"unreadable source", `{"source": "file:///etc/passwd"}`, "cannot be read on this venue"},
		} {
			t.Run("refuses "+tc.name, func(t *testing.T) { c.refused(t, "v/ops/skills/import", tc.input, tc.want) })
		}
		t.Run("from-skills imports and creates in one step", func(t *testing.T) {
			second := strings.Replace(skillMD, "tidy-notes", "weekly-report", 1)
			out := c.out(t, "v/ops/agent/from-skills", `{"agentId": "migrated", "systemPrompt": "You help with notes.",
				"operation": "v/ops/transition/scripted", "model": "m1", "skills": [{"text": `+string(mustJSON(skillMD))+`}, "w/skills/tidy-notes/content", {"text": `+string(mustJSON(second))+`}]}`)
			imported, _ := out["importedSkills"].([]any)
			if out["status"] != "SLEEPING" || out["created"] != true || len(imported) != 3 || out["skillset"] != "w/skills" ||
				!strings.HasSuffix(out["address"].(string), "/g/migrated") {
				t.Fatalf("%v", out)
			}
			cfg := c.out(t, "v/ops/agent/info", `{"agentId": "migrated"}`)["config"].(map[string]any)
			// tidy-notes came twice (inline, then by path): listed once.
			if cfg["systemPrompt"] != "You help with notes." || cfg["model"] != "m1" || len(cfg["skills"].([]any)) != 2 {
				t.Fatalf("config %v", cfg)
			}
			if r := c.out(t, "v/ops/agent/request", `{"agentId": "migrated", "input": {"go": 1}}`); r["run"] != 1.0 {
				t.Fatalf("%v", r)
			}
			c.refused(t, "v/ops/agent/from-skills", `{"agentId": "bad", "skills": [{"text": "nope"}]}`, "skills[0]: SKILL.md must start")
		})
		t.Run("templates", func(t *testing.T) {
			for _, name := range []string{"minimal", "reader", "worker", "analyst", "manager", "full", "scripted"} {
				out := c.out(t, "v/ops/agent/create", `{"agentId": "t-`+name+`", "config": "template:`+name+`"}`)
				if out["created"] != true {
					t.Fatalf("%s: %v", name, out)
				}
			}
			cfg := c.out(t, "v/ops/agent/info", `{"agentId": "t-reader"}`)["config"].(map[string]any)
			if cfg["operation"] != "v/ops/llmagent/chat" || cfg["systemPrompt"] == nil {
				t.Fatalf("%v", cfg)
			}
			c.run(t, "v/ops/core/write", `{"path": "w/agents/mine", "value": {"operation": "v/ops/transition/scripted", "model": "w"}}`)
			c.out(t, "v/ops/agent/create", `{"agentId": "from-ws", "config": "w/agents/mine"}`)
			c.out(t, "v/ops/agent/create", `{"agentId": "from-op", "config": "v/ops/transition/scripted"}`)
			if op := c.out(t, "v/ops/agent/info", `{"agentId": "from-op"}`)["config"].(map[string]any)["operation"]; op != "v/ops/transition/scripted" {
				t.Fatalf("%v", op)
			}
		})
	})
}
