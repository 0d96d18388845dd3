package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridvenue/venue/sql/sqltest"
	"github.com/gridvenue/venue/tools/llmstub"
)

const stubKey = "sk-stub-secret-7f3a"

// llmAgent starts a venue allowed to reach a stand-in provider, stores the
// provider key as the caller's secret and returns both.
func llmAgent(t *testing.T, stub *llmstub.Stub) (*client, string) {
	return llmAgentOn(t, "", stub)
}

// llmAgentOn is llmAgent on the given store.
func llmAgentOn(t *testing.T, store string, stub *llmstub.Stub) (*client, string) {
	srv := httptest.NewServer(stub)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	m := MustRunMain(t, store, func(c *Config) { c.AllowHosts = []string{host} })
	c := newClient(m)
	c.do(t, "PUT", "/api/v1/secrets/OPENAI_API_KEY", `"`+stubKey+`"`)
	c.do(t, "PUT", "/api/v1/secrets/ANTHROPIC_API_KEY", `"`+stubKey+`"`)
	return c, srv.URL + "/v1"
}

// TestAgents_LLMToolCalls runs a task through the LLM transition on both
// wire protocols, plain and streamed: the model writes with a granted
// tool, completes the task with complete_task, and the key shows nowhere.
func TestAgents_LLMToolCalls(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	for _, tc := range []struct {
		name, provider string
		stream         bool
	}{
		{"openai", "openai", false},
		{"openai streaming", "openai", true},
		{"anthropic", "anthropic", false},
		{"anthropic streaming", "anthropic", true},
	} {
		for _, st := range sqltest.Stores(t) {
			t.Run(tc.name+"/"+st.Name, func(t *testing.T) { llmToolCalls(t, st.DSN, tc.provider, tc.stream) })
		}
	}
}

func llmToolCalls(t *testing.T, store, provider string, streamed bool) {
	stub := llmstub.New(stubKey,
		llmstub.Reply{ToolCalls: []llmstub.ToolCall{{Name: "core_write", Arguments: []byte(`{"path": "w/report", "value": {"total": 42}}`)}}},
		llmstub.Reply{Text: "Writing done.", ToolCalls: []llmstub.ToolCall{{Name: "complete_task", Arguments: []byte(`{"result": {"total": 42}}`)}}},
		llmstub.Reply{Text: "All finished."})
	c, base := llmAgentOn(t, store, stub)
	stream := "false"
	if streamed {
		stream = "true"
	}
	c.out(t, "v/ops/agent/create", `{"agentId": "llm", "config": {"operation": "v/ops/llmagent/chat", "provider": "`+provider+`",
		"baseUrl": "`+base+`", "model": "m1", "stream": `+stream+`, "systemPrompt": "You add things up.", "tools": ["v/ops/core/write"]}}`)
	out := c.out(t, "v/ops/agent/request", `{"agentId": "llm", "input": "add up the numbers", "timeout": 10000}`)
	if out["total"] != 42.0 || out["sessionId"] == nil {
		t.Fatalf("request: %v", out)
	}
	if w := string(c.read(t, "w/report")); w != `{"total":42}` {
		t.Fatalf("w/report %s", w)
	}
	reqs := stub.Requests()
	if len(reqs) != 3 || reqs[0].API != provider {
		t.Fatalf("%d requests: %+v", len(reqs), reqs)
	}
	first := mustJSON(reqs[0].Body)
	for _, want := range []string{"You add things up.", "add up the numbers", "core_write", "complete_task"} {
		if !strings.Contains(string(first), want) {
			t.Fatalf("the first model request lacks %q: %s", want, first)
		}
	}
	if last := string(mustJSON(reqs[2].Body)); !strings.Contains(last, `{\"written\":true}`) {
		t.Fatalf("the tool result did not reach the model: %s", last)
	}
	tl := string(c.read(t, "g/llm/timeline/0/taskResults"))
	if !strings.Contains(tl, `"status":"COMPLETE"`) {
		t.Fatalf("timeline taskResults %s", tl)
	}
	var jobs struct{ Values []any }
	r := c.do(t, "GET", "/api/v1/values/slice?path=j&limit=100", nil)
	r.json(t, &jobs)
	if strings.Contains(string(r.body), stubKey) || len(jobs.Values) < 5 {
		t.Fatalf("%d jobs; key in records: %v", len(jobs.Values), strings.Contains(string(r.body), stubKey))
	}
}

// TestAgents_LLMFailures: a missing key, fail_task, and a broken provider.
func TestAgents_LLMFailures(t *testing.T) {
	stub := llmstub.New(stubKey,
		llmstub.Reply{ToolCalls: []llmstub.ToolCall{{Name: "fail_task", Arguments: []byte(`{"error": "the numbers are missing"}`)}}},
		llmstub.Reply{Text: "I could not."})
	c, base := llmAgent(t, stub)
	cfg := `{"operation": "v/ops/llmagent/chat", "baseUrl": "` + base + `", "model": "m1"`
	t.Run("fail_task fails the request and the agent sleeps", func(t *testing.T) {
		c.out(t, "v/ops/agent/create", `{"agentId": "f1", "config": `+cfg+`}}`)
		c.refused(t, "v/ops/agent/request", `{"agentId": "f1", "input": "add", "timeout": 10000}`, "the numbers are missing")
		eventually(t, "the agent sleeps", func() bool { return c.status(t, "f1") == "SLEEPING" })
	})
	t.Run("one answer runs at most 32 tool calls, and the rest are answered as not run", func(t *testing.T) {
		c.out(t, "v/ops/agent/create", `{"agentId": "many", "config": {"operation": "v/ops/llmagent/chat", "baseUrl": "`+base+`", "model": "m1", "tools": ["v/ops/core/read"]}}`)
		calls := make([]llmstub.ToolCall, 40)
		for i := range calls {
			calls[i] = llmstub.ToolCall{Name: "core_read", Arguments: []byte(`{"path": "w/nothing"}`)}
		}
		from := len(stub.Requests())
		stub.Add(llmstub.Reply{ToolCalls: calls}, llmstub.Reply{Text: "done"})
		if out := c.out(t, "v/ops/agent/request", `{"agentId": "many", "input": "read a lot", "timeout": 10000}`); out["result"] != "done" {
			t.Fatalf("request %v", out)
		}
		if sent := requestBodies(stub, from); strings.Count(sent, "not run: one answer may make at most 32 tool calls") != 8 {
			t.Fatalf("the model was not told which calls did not run: %s", sent)
		}
	})
	t.Run("a missing key suspends the agent with the spec's error", func(t *testing.T) {
		c.out(t, "v/ops/agent/create", `{"agentId": "f2", "config": `+cfg+`, "apiKeySecret": "NO_SUCH_KEY"}}`)
		snap := c.out(t, "v/ops/agent/request", `{"agentId": "f2", "input": "add", "timeout": 0}`)
		eventually(t, "the agent is suspended", func() bool { return c.status(t, "f2") == "SUSPENDED" })
		info := c.out(t, "v/ops/agent/info", `{"agentId": "f2"}`)
		if !strings.Contains(info["error"].(string), "API key not found for provider 'openai' at /s/NO_SUCH_KEY") || info["tasks"] != 1.0 || info["timelineLength"] != 0.0 {
			t.Fatalf("info %v", info)
		}
		// Store the key, resume: the kept task now runs to completion.
		c.do(t, "PUT", "/api/v1/secrets/NO_SUCH_KEY", `"`+stubKey+`"`)
		stub.Add(llmstub.Reply{Text: "42"})
		c.out(t, "v/ops/agent/resume", `{"agentId": "f2"}`)
		r := c.run(t, "v/ops/grid/job-result", `{"id": "`+snap["id"].(string)+`", "timeout": 10000}`)
		if r.status != 200 || string(r.body) != `"42"` {
			t.Fatalf("result %d %s", r.status, r.body)
		}
	})
	t.Run("a key pasted as apiKeySecret is refused and never repeated", func(t *testing.T) {
		const pasted = "sk-proj-Pasted0123456789abcdefXYZ"
		job := invokeJob(t, c, `{"operation": "v/ops/llm/chat", "wait": true, "input": {"baseUrl": "`+base+`", "model": "m1",
			"apiKeySecret": "`+pasted+`", "messages": [{"role": "user", "content": "hi"}]}}`)
		if job.Status != "FAILED" || !strings.Contains(job.Error, "looks like an API key itself") || strings.Contains(job.Error, "Pasted0123") {
			t.Fatalf("job %+v", job)
		}
		// A secret of that name, however it looks, is used.
		c.do(t, "PUT", "/api/v1/secrets/"+pasted, `"`+stubKey+`"`)
		stub.Add(llmstub.Reply{Text: "named like a key"})
		job = invokeJob(t, c, `{"operation": "v/ops/llm/chat", "wait": true, "input": {"baseUrl": "`+base+`", "model": "m1",
			"apiKeySecret": "`+pasted+`", "messages": [{"role": "user", "content": "hi"}]}}`)
		if job.Status != "COMPLETE" {
			t.Fatalf("a secret named like a key: %+v", job)
		}
	})
	t.Run("a provider refusing the key suspends the agent", func(t *testing.T) {
		c.do(t, "PUT", "/api/v1/secrets/WRONG_KEY", `"sk-wrong"`)
		c.out(t, "v/ops/agent/create", `{"agentId": "f3", "config": `+cfg+`, "apiKeySecret": "WRONG_KEY"}}`)
		c.out(t, "v/ops/agent/message", `{"agentId": "f3", "message": "hi"}`)
		eventually(t, "the agent is suspended", func() bool { return c.status(t, "f3") == "SUSPENDED" })
		info := c.out(t, "v/ops/agent/info", `{"agentId": "f3"}`)
		if e := info["error"].(string); !strings.Contains(e, "answered 401") || strings.Contains(e, "sk-wrong") {
			t.Fatalf("error %q", e)
		}
	})
}

// TestAgents_LLMChatContextAndOwnModel: a chat with a response schema,
// agent:context, and llmOperation (bring your own model).
func TestAgents_LLMChatContextAndOwnModel(t *testing.T) {
	stub := llmstub.New(stubKey)
	c, base := llmAgent(t, stub)
	c.out(t, "v/ops/agent/create", `{"agentId": "c1", "config": {"operation": "v/ops/llmagent/chat", "provider": "anthropic", "baseUrl": "`+base+`",
		"model": "m1", "systemPrompt": "Be brief.", "tools": ["v/ops/core/read"], "responseSchema": {"type": "object"}}}`)
	stub.Add(llmstub.Reply{Text: `{"greeting": "hello"}`})
	out := c.out(t, "v/ops/agent/chat", `{"agentId": "c1", "message": "say hello"}`)
	if resp, _ := out["response"].(map[string]any); resp["greeting"] != "hello" {
		t.Fatalf("chat %v", out)
	}
	ctx := c.out(t, "v/ops/agent/context", `{"agentId": "c1", "task": "what next?"}`)
	body := string(mustJSON(ctx))
	for _, want := range []string{`"systemPrompt":"Be brief.`, `"name":"core_read"`, `"name":"complete_task"`, "what next?"} {
		if !strings.Contains(body, want) {
			t.Fatalf("context lacks %s: %s", want, body)
		}
	}
	if n := len(stub.Requests()); n != 1 {
		t.Fatalf("agent:context called the model: %d requests", n)
	}
	c.out(t, "v/ops/agent/create", `{"agentId": "own", "config": {"operation": "v/ops/llmagent/chat", "llmOperation": "v/ops/llm/chat",
		"provider": "openai", "baseUrl": "`+base+`", "model": "m2"}}`)
	stub.Add(llmstub.Reply{Text: "via my own model"})
	res := c.out(t, "v/ops/agent/request", `{"agentId": "own", "input": "hi", "timeout": 10000}`)
	if res["result"] != "via my own model" {
		t.Fatalf("request %v", res)
	}
}
