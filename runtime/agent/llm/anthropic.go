package llm

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// anthropicVersion is the API version the client speaks.
const anthropicVersion = "2023-06-01"

type antBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

// anthropicBody is the messages request body. Tool results travel as
// user turns holding tool_result blocks, as the API wants.
func anthropicBody(req *Request) map[string]any {
	type msg struct {
		Role    string     `json:"role"`
		Content []antBlock `json:"content"`
	}
	msgs := []msg{}
	add := func(role string, b antBlock) {
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, b)
			return
		}
		msgs = append(msgs, msg{Role: role, Content: []antBlock{b}})
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "tool":
			add("user", antBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content})
		case "assistant":
			if m.Content != "" {
				add("assistant", antBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				add("assistant", antBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: tc.Arguments})
			}
		default:
			add("user", antBlock{Type: "text", Text: m.Content})
		}
	}
	system := req.System
	if len(req.ResponseSchema) > 0 {
		system += "\n\nAnswer with JSON only, matching this JSON Schema:\n" + string(req.ResponseSchema)
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "max_tokens": max(req.MaxTokens, 1024), "stream": req.Stream}
	if system != "" {
		body["system"] = system
	}
	if len(req.Tools) > 0 {
		tools := make([]any, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters}
		}
		body["tools"] = tools
	}
	return body
}

func callAnthropic(ctx context.Context, env *runtime.Env, req *Request, key string) (*Response, error) {
	b, _ := json.Marshal(anthropicBody(req))
	body, err := post(ctx, env, runtime.HTTPRequest{URL: req.BaseURL + "/messages", Body: b,
		Headers: map[string]string{"anthropic-version": anthropicVersion}, SecretHeaders: map[string]string{"x-api-key": key}}, "anthropic")
	if err != nil {
		return nil, err
	}
	var blocks []antBlock
	if req.Stream {
		if blocks, err = anthropicStream(body); err != nil {
			return nil, err
		}
	} else {
		var r struct {
			Content []antBlock `json:"content"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'anthropic' answered something that is not a message: %s", clip(body))
		}
		blocks = r.Content
	}
	out := &Response{Role: "assistant"}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out.Content += b.Text
		case "tool_use":
			in := b.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: in})
		}
	}
	return out, nil
}

// anthropicStream assembles the content blocks of a streamed message.
func anthropicStream(body string) ([]antBlock, error) {
	var blocks []antBlock
	var partial []strings.Builder
	stopped := false
	for _, ev := range events(body) {
		var e struct {
			Type         string   `json:"type"`
			Index        int      `json:"index"`
			ContentBlock antBlock `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(ev), &e); err != nil {
			return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'anthropic' streamed an event that is not JSON: %s", clip(ev))
		}
		switch e.Type {
		case "content_block_start":
			// Blocks arrive in order, each at the next index: an index
			// that is negative or skips ahead is no message of the API's,
			// and would crash the venue or make it allocate without bound.
			if e.Index < 0 || e.Index > len(blocks) {
				return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'anthropic' streamed a content block at index %d where %d was next: %s", e.Index, len(blocks), clip(ev))
			}
			for len(blocks) <= e.Index {
				blocks, partial = append(blocks, antBlock{}), append(partial, strings.Builder{})
			}
			blocks[e.Index] = e.ContentBlock
			blocks[e.Index].Input = nil
		case "content_block_delta":
			if e.Index < 0 || e.Index >= len(blocks) {
				continue
			}
			blocks[e.Index].Text += e.Delta.Text
			partial[e.Index].WriteString(e.Delta.PartialJSON)
		case "message_stop":
			stopped = true
		case "error":
			return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'anthropic' streamed an error: %s", clip(ev))
		}
	}
	if !stopped {
		// A message ends with message_stop: a stream without it was cut
		// short, and its text is part of an answer.
		return nil, venue.Errorf(venue.EUNAVAILABLE, "Provider 'anthropic' stream ended before the message did (no message_stop): the connection was cut, try again")
	}
	for i := range blocks {
		if blocks[i].Type == "tool_use" {
			blocks[i].Input = rawArgs(partial[i].String())
		}
	}
	return blocks, nil
}
