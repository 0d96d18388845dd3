package llmstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openAI answers a chat-completions request.
func (s *Stub) openAI(w http.ResponseWriter, body map[string]any) {
	r := s.next("openai", body)
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if stream, _ := body["stream"].(bool); stream {
		e := newSSE(w)
		chunk := func(delta map[string]any, fin any) {
			e.send("", map[string]any{"id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": body["model"],
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}})
		}
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for _, part := range split(r.Text) {
			chunk(map[string]any{"content": part}, nil)
		}
		for i, tc := range r.ToolCalls {
			a := args(tc)
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": a[:len(a)/2]}}}}, nil)
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": a[len(a)/2:]}}}}, nil)
		}
		chunk(map[string]any{}, finish)
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	msg := map[string]any{"role": "assistant", "content": r.Text}
	if r.Text == "" {
		msg["content"] = nil
	}
	if len(r.ToolCalls) > 0 {
		calls := make([]any, len(r.ToolCalls))
		for i, tc := range r.ToolCalls {
			calls[i] = map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": args(tc)}}
		}
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-stub", "object": "chat.completion", "model": body["model"],
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
}

// split cuts text in two, so streams carry more than one delta.
func split(text string) []string {
	if text == "" {
		return nil
	}
	rs := []rune(text)
	return []string{string(rs[:len(rs)/2]), string(rs[len(rs)/2:])}
}
