package llm

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

type oaiMessage struct {
	Role       string        `json:"role"`
	Content    *string       `json:"content"`
	ToolCalls  []oaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type oaiToolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openAIBody is the chat-completions request body.
func openAIBody(req *Request) map[string]any {
	msgs := []oaiMessage{}
	if req.System != "" {
		s := req.System
		msgs = append(msgs, oaiMessage{Role: "system", Content: &s})
	}
	for _, m := range req.Messages {
		c := m.Content
		om := oaiMessage{Role: m.Role, Content: &c, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			var otc oaiToolCall
			otc.ID, otc.Type = tc.ID, "function"
			otc.Function.Name, otc.Function.Arguments = tc.Name, string(tc.Arguments)
			om.ToolCalls = append(om.ToolCalls, otc)
		}
		msgs = append(msgs, om)
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": req.Stream}
	if len(req.Tools) > 0 {
		tools := make([]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
		}
		body["tools"] = tools
	}
	if len(req.ResponseSchema) > 0 {
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "response", "schema": req.ResponseSchema}}
	}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	return body
}

func callOpenAI(ctx context.Context, env *runtime.Env, req *Request, key string) (*Response, error) {
	b, _ := json.Marshal(openAIBody(req))
	body, err := post(ctx, env, runtime.HTTPRequest{URL: req.BaseURL + "/chat/completions", Body: b, BearerSecret: key}, "openai")
	if err != nil {
		return nil, err
	}
	if req.Stream {
		return openAIStream(body)
	}
	var r struct {
		Choices []struct {
			Message oaiMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Choices) == 0 {
		return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'openai' answered something that is not a chat completion: %s", clip(body))
	}
	m := r.Choices[0].Message
	out := &Response{Role: "assistant"}
	if m.Content != nil {
		out.Content = *m.Content
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: rawArgs(tc.Function.Arguments)})
	}
	return out, nil
}

// openAIStream assembles a streamed completion from its chunks.
func openAIStream(body string) (*Response, error) {
	out := &Response{Role: "assistant"}
	var text strings.Builder
	calls := map[int]*oaiToolCall{}
	order := []int{}
	finished := false
	for _, ev := range events(body) {
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   *string       `json:"content"`
					ToolCalls []oaiToolCall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(ev), &ch); err != nil {
			return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'openai' streamed a chunk that is not JSON: %s", clip(ev))
		}
		for _, c := range ch.Choices {
			finished = finished || c.FinishReason != nil && *c.FinishReason != ""
			if c.Delta.Content != nil {
				text.WriteString(*c.Delta.Content)
			}
			for _, tc := range c.Delta.ToolCalls {
				cur := calls[tc.Index]
				if cur == nil {
					cur = &oaiToolCall{}
					calls[tc.Index], order = cur, append(order, tc.Index)
				}
				cur.ID += tc.ID
				cur.Function.Name += tc.Function.Name
				cur.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	if !finished {
		// The last chunk of a completion names why it ended: a stream
		// without it was cut short, and its text is part of an answer.
		return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'openai' stream ended before the answer did (no chunk gave a finish_reason): the connection was cut, try again")
	}
	out.Content = text.String()
	for _, i := range order {
		tc := calls[i]
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: rawArgs(tc.Function.Arguments)})
	}
	return out, nil
}

// rawArgs keeps arguments that are JSON, and wraps any that are not.
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(map[string]string{"_raw": s})
	return b
}
