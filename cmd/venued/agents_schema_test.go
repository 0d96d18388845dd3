package main

import (
	"strings"
	"testing"

	"github.com/gridvenue/venue/tools/llmstub"
)

// TestAgents_ResponseSchema: the answer is checked against responseSchema;
// the model is told of a violation and asked once more, and a second
// violation fails the turn naming it.
func TestAgents_ResponseSchema(t *testing.T) {
	stub := llmstub.New(stubKey)
	stubVenues(t, stub, func(t *testing.T, m *Main, base string) {
		c, _ := asUser(t, m)
		c.withKey(t)
		mustOK(t, c.do(t, "PUT", "/api/v1/secrets/ANTHROPIC_API_KEY", `"`+stubKey+`"`))
		schema := `{"type": "object", "required": ["total"], "properties": {"total": {"type": "number"}}}`
		agent := func(id, provider string) {
			c.out(t, "v/ops/agent/create", `{"agentId": "`+id+`", "config": {"operation": "v/ops/llmagent/chat", "provider": "`+provider+`",
				"baseUrl": "`+base+`", "model": "m1", "responseSchema": `+schema+`}}`)
		}
		agent("sum", "openai")
		agent("talk", "anthropic")

		t.Run("a violation is sent back once and the corrected answer is the result", func(t *testing.T) {
			from := len(stub.Requests())
			stub.Add(llmstub.Reply{Text: `{"total": "many"}`}, llmstub.Reply{Text: "```json\n{\"total\": 42}\n```"})
			out := c.out(t, "v/ops/agent/request", `{"agentId": "sum", "input": "add up", "timeout": 10000}`)
			if out["total"] != 42.0 {
				t.Fatalf("request %v", out)
			}
			reqs := stub.Requests()[from:]
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			retry := string(mustJSON(reqs[1].Body))
			for _, want := range []string{"does not match the required response schema", "answer.total", "want number"} {
				if !strings.Contains(retry, want) {
					t.Fatalf("the retry lacks %q: %s", want, retry)
				}
			}
			if rf := string(mustJSON(reqs[0].Body["response_format"])); !strings.Contains(rf, `"json_schema"`) {
				t.Fatalf("response_format %s", rf)
			}
		})

		t.Run("a second violation fails the task naming it, and the agent goes on", func(t *testing.T) {
			stub.Add(llmstub.Reply{Text: "forty-two"}, llmstub.Reply{Text: `{"total": "many"}`})
			c.refused(t, "v/ops/agent/request", `{"agentId": "sum", "input": "add up", "timeout": 10000}`,
				"The model's answer broke responseSchema again after being told: answer.total")
			if st := c.status(t, "sum"); st != "SLEEPING" {
				t.Fatalf("status %s", st)
			}
		})

		t.Run("a request's schema overrides the config's and checks complete_task's result", func(t *testing.T) {
			from := len(stub.Requests())
			stub.Add(toolCall("complete_task", `{"result": {"count": 1}}`), toolCall("complete_task", `{"result": {"count": 2, "items": ["a", "b"]}}`),
				llmstub.Reply{Text: "done"})
			out := c.out(t, "v/ops/agent/request", `{"agentId": "talk", "input": "list", "timeout": 10000,
				"responseSchema": {"type": "object", "required": ["items"]}}`)
			if out["count"] != 2.0 {
				t.Fatalf("request %v", out)
			}
			if sent := requestBodies(stub, from); !strings.Contains(sent, "complete_task was refused") || !strings.Contains(sent, "items") {
				t.Fatalf("the model was not told: %s", sent)
			}
		})

		t.Run("a chat whose answer breaks the schema twice fails with the violation", func(t *testing.T) {
			stub.Add(llmstub.Reply{Text: `{"sum": 1}`}, llmstub.Reply{Text: `{"sum": 2}`})
			c.refused(t, "v/ops/agent/chat", `{"agentId": "talk", "message": "add"}`, "missing property 'total'")
			info := c.out(t, "v/ops/agent/info", `{"agentId": "talk"}`)
			if e, _ := info["error"].(string); info["status"] != "SUSPENDED" || !strings.Contains(e, "broke responseSchema again") {
				t.Fatalf("info %v", info)
			}
		})

		t.Run("agent:context shows the schema the model gets", func(t *testing.T) {
			ctx := c.out(t, "v/ops/agent/context", `{"agentId": "sum", "task": "add up"}`)
			if !jsonSame(mustJSON(ctx["responseSchema"]), []byte(schema)) {
				t.Fatalf("context %v", ctx)
			}
		})
		t.Run("a request's schema that does not compile is refused", func(t *testing.T) {
			c.refused(t, "v/ops/agent/request", `{"agentId": "sum", "input": "x", "responseSchema": {"type": 12}}`, "responseSchema")
		})
	})
}
