package llm

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

//go:embed catalog
var catalogFS embed.FS

// Entries returns the catalog entries of llm:chat and llmagent:chat.
func Entries() ([]runtime.CatalogEntry, error) {
	return runtime.EntriesFromFS(catalogFS, "catalog", "v/ops")
}

// Executors returns the executors of the llm and llmagent families.
func Executors() map[string]runtime.Executor {
	return map[string]runtime.Executor{
		"llm":      runtime.OpFuncs{"chat": chatOp},
		"llmagent": runtime.OpFuncs{"chat": transition},
	}
}

// Framework tools every task-holding run offers.
const (
	completeTool = "complete_task"
	failTool     = "fail_task"
)

// input is the transition input (docs/AGENTS.md) as this transition reads it.
type input struct {
	AgentID string          `json:"agentId"`
	Config  config          `json:"config"`
	State   json.RawMessage `json:"state"`
	Tasks   []struct {
		JobID          string          `json:"jobId"`
		Input          json.RawMessage `json:"input"`
		ResponseSchema json.RawMessage `json:"responseSchema"`
	} `json:"tasks"`
	Session *struct {
		History []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"history"`
		Pending []json.RawMessage `json:"pending"`
	} `json:"session"`
	Inspect bool `json:"inspect"`
}

// config is the part of an agent's config the LLM transition reads.
type config struct {
	Provider       string          `json:"provider"`
	BaseURL        string          `json:"baseUrl"`
	Model          string          `json:"model"`
	APIKeySecret   string          `json:"apiKeySecret"`
	SystemPrompt   string          `json:"systemPrompt"`
	Tools          []string        `json:"tools"`
	Skills         []string        `json:"skills"`
	ResponseSchema json.RawMessage `json:"responseSchema"`
	LLMOperation   string          `json:"llmOperation"`
	Stream         bool            `json:"stream"`
	MaxToolRounds  int             `json:"maxToolRounds"`
}

// entry is a context entry: a skill read into the system prompt.
type entry struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

// prepared is everything sent to the model, which agent:context returns.
type prepared struct {
	req     Request
	entries []entry
	refs    map[string]string // tool name → operation reference
	task    string
	schema  json.RawMessage
	check   schemaCheck // compiled schema; nil without one
	// violations counts answers that broke the schema; failure is set
	// when the second ends the turn.
	violations int
	failure    error
}

// transition is llmagent:chat.
func transition(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p input
	if err := json.Unmarshal(in, &p); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "transition input is not {agentId, config, state, tasks, session}: %v", err)
	}
	pr, err := prepare(ctx, env, &p)
	if err != nil {
		return nil, err
	}
	if p.Inspect {
		return pr.view(p.Config.LLMOperation)
	}
	result, results, err := converse(ctx, env, &p, pr)
	if err != nil {
		return nil, err
	}
	state := p.State
	if len(state) == 0 {
		state = json.RawMessage("null")
	}
	return json.Marshal(map[string]any{"state": state, "result": result, "taskResults": results})
}

// view is agent:context's answer: the system prompt, tools and messages
// exactly as the model call would send them (taken from what Sent builds),
// the context entries with their sizes, and the response schema in force.
func (pr *prepared) view(llmOp string) (json.RawMessage, error) {
	sent, err := Sent(&pr.req, llmOp)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	b, _ := json.Marshal(sent)
	json.Unmarshal(b, &body)
	list := func(v any) []any {
		if l, ok := v.([]any); ok {
			return l
		}
		return []any{}
	}
	messages := list(body["messages"])
	system, ok := body["system"].(string)
	if first, _ := firstOf(messages).(map[string]any); !ok && first["role"] == "system" {
		system, _ = first["content"].(string) // chat completions send it as the first message
	}
	entries := pr.entries
	if entries == nil {
		entries = []entry{}
	}
	out := map[string]any{"systemPrompt": system, "contextEntries": entries, "tools": list(body["tools"]),
		"messages": messages, "model": pr.req.Model, "provider": pr.req.Provider}
	if llmOp != "" {
		out["llmOperation"] = llmOp
	}
	if pr.check != nil {
		out["responseSchema"] = pr.schema
	}
	return json.Marshal(out)
}

func firstOf(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

// prepare builds the model request: system prompt with skills, the
// conversation, the task, and the tools the agent is granted.
func prepare(ctx context.Context, env *runtime.Env, p *input) (*prepared, error) {
	c := p.Config
	pr := &prepared{refs: map[string]string{}, schema: c.ResponseSchema}
	pr.req = Request{Provider: cmp(c.Provider, "openai"), BaseURL: c.BaseURL, Model: c.Model, APIKeySecret: c.APIKeySecret,
		Stream: c.Stream, Messages: []Message{}}
	var sys strings.Builder
	sys.WriteString(c.SystemPrompt)
	for _, path := range c.Skills {
		res, err := env.Read(ctx, path, 0)
		if err != nil {
			// Most likely caps that do not let the agent read its skill.
			return nil, venue.Errorf(venue.ErrorCode(err), "Skill %s of the agent's config: %s", path, venue.ErrorMessage(err))
		}
		if !res.Exists {
			continue
		}
		var sk struct {
			Content string `json:"content"`
		}
		json.Unmarshal(res.Value, &sk)
		fmt.Fprintf(&sys, "\n\n## Skill (%s)\n\n%s", path, sk.Content)
		pr.entries = append(pr.entries, entry{Path: path, Bytes: len(sk.Content)})
	}
	if p.Session != nil {
		for _, h := range p.Session.History {
			role := "user"
			if h.Role == "assistant" {
				role = "assistant"
			}
			pr.req.Messages = append(pr.req.Messages, Message{Role: role, Content: text(h.Content)})
		}
		for _, m := range p.Session.Pending {
			pr.req.Messages = append(pr.req.Messages, Message{Role: "user", Content: text(m)})
		}
	}
	if len(p.Tasks) > 0 {
		t := p.Tasks[0]
		pr.task = t.JobID
		if len(t.ResponseSchema) > 0 && string(t.ResponseSchema) != "null" {
			pr.schema = t.ResponseSchema
		}
		sys.WriteString("\n\nYou are working on a task. When it is done call complete_task with the result; if it cannot be done call fail_task saying why.")
		pr.req.Messages = append(pr.req.Messages, Message{Role: "user", Content: "Task " + t.JobID + ":\n" + text(t.Input)})
	}
	if err := pr.compileSchema(); err != nil {
		return nil, err
	}
	if pr.check != nil {
		pr.req.ResponseSchema = pr.schema
	}
	pr.req.System = sys.String()
	if err := pr.tools(ctx, env, c.Tools); err != nil {
		return nil, err
	}
	return pr, nil
}

// tools offers the granted operations, named as MCP names them, plus the
// framework tools when a task is in scope.
func (pr *prepared) tools(ctx context.Context, env *runtime.Env, refs []string) error {
	for _, ref := range refs {
		op, err := env.Engine().Operation(env.Context(ctx), ref)
		if err != nil {
			return venue.Errorf(venue.EINVALID, "Tool %s of the agent's config: %s", ref, venue.ErrorMessage(err))
		}
		name := toolName(op)
		pr.refs[venue.SnakeCase(name)] = ref
		params := op.Input
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		pr.req.Tools = append(pr.req.Tools, Tool{Name: name, Description: op.Description, Parameters: params})
	}
	if pr.task != "" {
		pr.req.Tools = append(pr.req.Tools,
			Tool{Name: completeTool, Description: "Mark the current task complete with its result.", Parameters: json.RawMessage(`{"type":"object","properties":{"result":{"description":"The task's result"}}}`)},
			Tool{Name: failTool, Description: "Mark the current task failed, saying why.", Parameters: json.RawMessage(`{"type":"object","properties":{"error":{"type":"string"}},"required":["error"]}`)})
	}
	return nil
}

// toolName is the operation's tool name as MCP names it too: the entry's
// toolName, else its display name in snake_case.
func toolName(op *venue.Operation) string {
	if op.ToolName != "" {
		return op.ToolName
	}
	return venue.SnakeCase(op.Name)
}

// text renders a JSON value for a prompt: strings as they are.
func text(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// maxCallsPerAnswer bounds the tool calls one answer of the model runs:
// maxToolRounds counts answers, and an audit's model asked for 2,000 calls
// in one, which ran for minutes past the request's wait. The calls past it
// are answered as not run, as every call must be.
const maxCallsPerAnswer = 32

// converse runs the tool-call loop until the model answers without tools.
// An answer that breaks the response schema is sent back once with the
// violation; a second one ends the turn: the task in scope fails with the
// violation, or, without a task, the transition fails.
func converse(ctx context.Context, env *runtime.Env, p *input, pr *prepared) (json.RawMessage, map[string]any, error) {
	results := map[string]any{}
	rounds := p.Config.MaxToolRounds
	if rounds <= 0 {
		rounds = 8
	}
	for range rounds {
		resp, err := ask(ctx, env, p.Config.LLMOperation, &pr.req)
		if err != nil {
			return nil, nil, err
		}
		if len(resp.ToolCalls) == 0 {
			result, violation := pr.parseAnswer(resp.Content)
			if violation == "" || (pr.task != "" && results[pr.task] != nil) {
				return finish(result, pr, results)
			}
			retry, err := pr.violated(violation)
			if err != nil {
				return pr.failTurn(err, results)
			}
			pr.req.Messages = append(pr.req.Messages, Message{Role: "assistant", Content: resp.Content}, Message{Role: "user", Content: retry})
			continue
		}
		pr.req.Messages = append(pr.req.Messages, Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls})
		for i, tc := range resp.ToolCalls {
			out := fmt.Sprintf("Error: not run: one answer may make at most %d tool calls; make the rest in your next answer", maxCallsPerAnswer)
			if i < maxCallsPerAnswer {
				out = callTool(ctx, env, pr, tc, results)
			}
			if pr.failure != nil {
				return pr.failTurn(pr.failure, results)
			}
			pr.req.Messages = append(pr.req.Messages, Message{Role: "tool", ToolCallID: tc.ID, Content: out})
		}
	}
	return nil, nil, venue.Errorf(venue.EINVALID, "The model was still calling tools after %d rounds; raise maxToolRounds or simplify the task", rounds)
}

// failTurn ends a turn on err: the task in scope fails with it; without
// a task the transition fails.
func (pr *prepared) failTurn(err error, results map[string]any) (json.RawMessage, map[string]any, error) {
	if pr.task == "" {
		return nil, nil, err
	}
	results[pr.task] = map[string]any{"status": "FAILED", "output": venue.ErrorMessage(err)}
	return json.RawMessage("null"), results, nil
}

// ask calls the model directly, or through the agent's own llmOperation.
func ask(ctx context.Context, env *runtime.Env, llmOp string, req *Request) (*Response, error) {
	if llmOp == "" {
		return Call(ctx, env, req)
	}
	in, _ := json.Marshal(req)
	parent := env.JobID()
	eng := env.Engine()
	rec, err := eng.Invoke(env.Context(ctx), runtime.InvokeRequest{Operation: llmOp, Input: in, Parent: &parent, Wait: 10 * time.Minute})
	// The transition awaits its own child as the plain owner: an agent
	// confined to its caps need hold no read on the owner's jobs for that.
	c := env.Caller()
	owner := venue.WithCaller(ctx, venue.Caller{DID: c.DID, Anonymous: c.Anonymous})
	for err == nil && !rec.Status.Terminal() {
		rec, err = eng.Await(owner, rec.ID, time.Minute)
	}
	if err != nil {
		return nil, err
	}
	if rec.Status != venue.StatusComplete {
		return nil, venue.Errorf(venue.EINVALID, "llmOperation %s %s: %s", llmOp, rec.Status, rec.Error)
	}
	var resp Response
	if err := json.Unmarshal(rec.Output, &resp); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "llmOperation %s returned %s, not {role, content, toolCalls}", llmOp, clip(string(rec.Output)))
	}
	return &resp, nil
}

// callTool runs one tool call as the agent's owner and returns what the
// model is told: the output, or the error.
func callTool(ctx context.Context, env *runtime.Env, pr *prepared, tc ToolCall, results map[string]any) string {
	name := venue.SnakeCase(tc.Name)
	ref, ok := pr.refs[name]
	switch {
	case name == completeTool && pr.task != "":
		ref = "v/ops/agent/complete-task"
	case name == failTool && pr.task != "":
		ref = "v/ops/agent/fail-task"
	case !ok:
		return "Error: tool " + tc.Name + " is not granted to this agent"
	}
	if bad, ok := notJSON(tc.Arguments); ok {
		return "Error: the arguments of " + tc.Name + " are not JSON: " + clip(bad) + ". Call it again with a JSON object of its parameters."
	}
	if name == completeTool && pr.check != nil {
		if msg, ok := pr.checkResult(tc.Arguments); !ok {
			return msg
		}
	}
	parent := env.JobID()
	eng := env.Engine()
	tctx := venue.WithCaller(ctx, withoutKey(env.Caller(), pr.req))
	rec, err := eng.Invoke(tctx, runtime.InvokeRequest{Operation: ref, Input: tc.Arguments, Parent: &parent, Wait: 2 * time.Minute})
	if err != nil {
		return "Error: " + venue.ErrorMessage(err)
	}
	if rec.Status != venue.StatusComplete {
		return fmt.Sprintf("Error: %s %s: %s", tc.Name, rec.Status, rec.Error)
	}
	switch name {
	case completeTool:
		var a struct {
			Result json.RawMessage `json:"result"`
		}
		json.Unmarshal(tc.Arguments, &a)
		results[pr.task] = map[string]any{"status": "COMPLETE", "output": a.Result}
	case failTool:
		var a struct {
			Error string `json:"error"`
		}
		json.Unmarshal(tc.Arguments, &a)
		results[pr.task] = map[string]any{"status": "FAILED", "output": a.Error}
	}
	return string(rec.Output)
}

// checkResult checks complete_task's result against the response schema.
// On a violation it returns what the model is told, and false; the second
// violation sets pr.failure.
func (pr *prepared) checkResult(args json.RawMessage) (string, bool) {
	var a struct {
		Result json.RawMessage `json:"result"`
	}
	json.Unmarshal(args, &a)
	if len(a.Result) == 0 {
		a.Result = json.RawMessage("null")
	}
	violation := pr.check.Violation("result", a.Result)
	if violation == "" {
		return "", true
	}
	retry, err := pr.violated(violation)
	if err != nil {
		pr.failure = err
		return "", false
	}
	return "Error: complete_task was refused. " + retry + " Call complete_task again with such a result.", false
}

// finish ends the turn with the model's last answer as the result. A task
// the model did not resolve with a tool is completed with it.
func finish(result json.RawMessage, pr *prepared, results map[string]any) (json.RawMessage, map[string]any, error) {
	if pr.task != "" && results[pr.task] == nil {
		results[pr.task] = map[string]any{"status": "COMPLETE", "output": result}
	}
	return result, results, nil
}

// withoutKey is the agent's caller c for a tool call: without the use of
// the provider key that its bound adds for the model call alone (the
// agent's caps may still grant it). Tools run what the model asks, and a
// prompt the model read could ask an HTTP tool to send {s/OPENAI_API_KEY}
// to any server (an audit's agent, confined to reading w/notes, did).
func withoutKey(c venue.Caller, req Request) venue.Caller {
	bound := c.Bound()
	if bound == nil {
		return c
	}
	p, err := providerOf(&req)
	if err != nil {
		return c
	}
	key := venue.Capability{With: c.DID + "/" + venue.NSSecrets + "/" + p.keyName(&req), Can: venue.AbilityRead}
	i := slices.Index(bound, key)
	if i < 0 {
		return c
	}
	return c.Bounded(slices.Delete(slices.Clone(bound), i, i+1))
}

// notJSON reports the text of tool-call arguments the model gave that were
// no JSON at all, which rawArgs kept as {"_raw": text}: such a call is not
// run, since the operation would see none of what the model meant (and
// complete_task would complete its task with no result).
func notJSON(args json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) != 1 {
		return "", false
	}
	var s string
	if json.Unmarshal(m["_raw"], &s) != nil || json.Valid([]byte(s)) {
		return "", false
	}
	return s, true
}
