package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAgents_TemplatesInLattice: the shipped templates are readable at
// v/agents/templates/<name> through every lattice read, and
// template:<name> still resolves to the same config.
func TestAgents_TemplatesInLattice(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		worker := c.read(t, "v/agents/templates/worker")
		var cfg map[string]any
		if err := json.Unmarshal(worker, &cfg); err != nil || cfg["operation"] != "v/ops/llmagent/chat" {
			t.Fatalf("values/read v/agents/templates/worker: %s", worker)
		}
		var page struct {
			Values []struct {
				Key string `json:"key"`
			} `json:"values"`
		}
		c.do(t, "GET", "/api/v1/values/slice?path=v/agents/templates", nil).json(t, &page)
		var keys []string
		for _, v := range page.Values {
			keys = append(keys, v.Key)
		}
		for _, want := range []string{"minimal", "reader", "worker", "analyst", "manager", "full"} {
			if !strings.Contains(strings.Join(keys, ","), want) {
				t.Fatalf("values/slice v/agents/templates lists %v, not %s", keys, want)
			}
		}
		out := c.out(t, "v/ops/core/read", `{"path": "v/agents/templates/worker/tools"}`)
		if !strings.Contains(string(mustJSON(out)), "v/ops/core/write") {
			t.Fatalf("core:read %v", out)
		}
		user, _ := asUser(t, m)
		user.out(t, "v/ops/agent/create", `{"agentId": "w", "config": "template:worker"}`)
		info := user.out(t, "v/ops/agent/info", `{"agentId": "w"}`)
		if !jsonSame(mustJSON(info["config"]), worker) {
			t.Fatalf("template:worker gave %v, the lattice holds %s", info["config"], worker)
		}
		user.out(t, "v/ops/agent/create", `{"agentId": "w2", "config": "v/agents/templates/worker"}`)
		if info := user.out(t, "v/ops/agent/info", `{"agentId": "w2"}`); !jsonSame(mustJSON(info["config"]), worker) {
			t.Fatalf("config v/agents/templates/worker gave %v, the lattice holds %s", info["config"], worker)
		}
		if r := c.do(t, "GET", "/api/v1/values/read?path=v/agents/templates/nosuch", nil); r.status != 200 || !strings.Contains(string(r.body), `"exists":false`) {
			t.Fatalf("an unknown template: %d %s", r.status, r.body)
		}
	})
}
