package main

import (
	"strings"
	"testing"

	"github.com/gridvenue/venue/tools/llmstub"
)

// TestAgents_ContextIsWhatIsSent: agent:context shows the system prompt
// and tools exactly as the provider then receives them (Anthropic with a
// response schema too), empty lists as [], and asks only transitions that
// support inspection.
func TestAgents_ContextIsWhatIsSent(t *testing.T) {
	stub := llmstub.New(stubKey)
	c, base := llmAgent(t, stub)
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			id := "ctx-" + provider
			c.out(t, "v/ops/agent/create", `{"agentId": "`+id+`", "config": {"operation": "v/ops/llmagent/chat", "provider": "`+provider+`",
				"baseUrl": "`+base+`", "model": "m1", "systemPrompt": "Be brief.", "tools": ["v/ops/core/read"],
				"responseSchema": {"type": "object", "required": ["greeting"]}}}`)
			ctx := c.out(t, "v/ops/agent/context", `{"agentId": "`+id+`"}`)
			from := len(stub.Requests())
			stub.Add(llmstub.Reply{Text: `{"greeting": "hello"}`})
			c.out(t, "v/ops/agent/chat", `{"agentId": "`+id+`", "message": "say hello"}`)
			sent := stub.Requests()[from].Body
			system := sent["system"]
			if provider == "openai" {
				system = sent["messages"].([]any)[0].(map[string]any)["content"]
			}
			if ctx["systemPrompt"] != system || !strings.Contains(system.(string), "Be brief.") {
				t.Fatalf("context's system prompt %q, sent %q", ctx["systemPrompt"], system)
			}
			if !jsonSame(mustJSON(ctx["tools"]), mustJSON(sent["tools"])) {
				t.Fatalf("context's tools %s, sent %s", mustJSON(ctx["tools"]), mustJSON(sent["tools"]))
			}
		})
	}
	t.Run("empty lists are []", func(t *testing.T) {
		c.out(t, "v/ops/agent/create", `{"agentId": "bare", "config": {"operation": "v/ops/llmagent/chat", "provider": "anthropic", "baseUrl": "`+base+`", "model": "m1"}}`)
		ctx := c.out(t, "v/ops/agent/context", `{"agentId": "bare"}`)
		for _, k := range []string{"tools", "messages", "contextEntries"} {
			if string(mustJSON(ctx[k])) != "[]" {
				t.Fatalf("%s is %s, not []: %v", k, mustJSON(ctx[k]), ctx)
			}
		}
	})
	t.Run("a transition that does not support inspection is not run", func(t *testing.T) {
		c.out(t, "v/ops/agent/create", `{"agentId": "odd", "config": {"operation": "v/ops/agent/suspend"}}`)
		c.refused(t, "v/ops/agent/context", `{"agentId": "odd"}`, "does not support inspection")
		if st := c.status(t, "odd"); st != "SLEEPING" {
			t.Fatalf("agent:context ran the transition: the agent is %s", st)
		}
	})
}

// TestAgents_OwnModelNeedsNoProvider: an agent bringing its own model
// (llmOperation) works without naming a provider.
func TestAgents_OwnModelNeedsNoProvider(t *testing.T) {
	stub := llmstub.New(stubKey, llmstub.Reply{Text: "via my own model"})
	c, base := llmAgent(t, stub)
	c.out(t, "v/ops/agent/create", `{"agentId": "own", "config": {"operation": "v/ops/llmagent/chat", "llmOperation": "v/ops/llm/chat",
		"baseUrl": "`+base+`", "model": "m2"}}`)
	res := c.out(t, "v/ops/agent/request", `{"agentId": "own", "input": "hi", "timeout": 10000}`)
	if res["result"] != "via my own model" {
		t.Fatalf("request %v", res)
	}
}

// TestAgents_LLMToolNamesAreSnakeCase: the model is offered cancel-task as
// agent_cancel_task, and a call by the old name agent_cancelTask still
// reaches it.
func TestAgents_LLMToolNamesAreSnakeCase(t *testing.T) {
	stub := llmstub.New(stubKey)
	c, base := llmAgent(t, stub)
	c.out(t, "v/ops/agent/create", `{"agentId": "tidy", "config": {"operation": "v/ops/llmagent/chat", "baseUrl": "`+base+`", "model": "m1",
		"tools": ["v/ops/agent/cancel-task"]}}`)
	stub.Add(toolCall("agent_cancelTask", `{"agentId": "tidy", "taskId": "0x0000000000000000000000000000abcd"}`), llmstub.Reply{Text: "tried"})
	c.out(t, "v/ops/agent/chat", `{"agentId": "tidy", "message": "cancel that task"}`)
	sent := requestBodies(stub, 0)
	if !strings.Contains(sent, `"agent_cancel_task"`) || strings.Contains(sent, "not granted") || !strings.Contains(sent, "Task not found") {
		t.Fatalf("requests: %s", sent)
	}
}
