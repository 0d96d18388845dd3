package llmstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropic answers a messages request.
func (s *Stub) anthropic(w http.ResponseWriter, body map[string]any) {
	r := s.next("anthropic", body)
	stop := "end_turn"
	if len(r.ToolCalls) > 0 {
		stop = "tool_use"
	}
	var blocks []map[string]any
	if r.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": r.Text})
	}
	for i, tc := range r.ToolCalls {
		var input any = map[string]any{}
		json.Unmarshal(tc.Arguments, &input)
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": tc.Name, "input": input})
	}
	if stream, _ := body["stream"].(bool); stream {
		s.anthropicStream(w, body, r, blocks, stop)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "msg_stub", "type": "message", "role": "assistant", "model": body["model"],
		"content": blocks, "stop_reason": stop, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}})
}

func (s *Stub) anthropicStream(w http.ResponseWriter, body map[string]any, r Reply, blocks []map[string]any, stop string) {
	e := newSSE(w)
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_stub", "type": "message",
		"role": "assistant", "model": body["model"], "content": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 0}}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			for _, part := range split(r.Text) {
				e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			for _, part := range []string{string(in[:len(in)/2]), string(in[len(in)/2:])} {
				e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		}
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 1}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}
