package llm

import (
	"slices"
	"testing"
)

func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"openai with done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`}},
		{"named events and comments", ": ping\nevent: message_start\ndata: {\"b\":2}\n\n", []string{`{"b":2}`}},
		{"multi-line data and CRLF", "data: {\"c\":\r\ndata: 3}\r\n\r\n", []string{"{\"c\":\n3}"}},
		{"no trailing blank line", "data: x", []string{"x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := events(tc.body); !slices.Equal(got, tc.want) {
				t.Fatalf("%q", got)
			}
		})
	}
}

func FuzzEvents(f *testing.F) {
	f.Add("data: {}\n\n")
	f.Fuzz(func(t *testing.T, body string) { events(body) })
}

func TestStreams(t *testing.T) {
	oai := "data: {\"choices\":[{\"delta\":{\"content\":\"he\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"llo\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
	r, err := openAIStream(oai)
	if err != nil || r.Content != "hello" || len(r.ToolCalls) != 1 || string(r.ToolCalls[0].Arguments) != `{"a":1}` {
		t.Fatalf("%+v %v", r, err)
	}
	ant := "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"g\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"b\\\":\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"2}\"}}\n\n"
	blocks, err := anthropicStream(ant + "data: {\"type\":\"message_stop\"}\n\n")
	if err != nil || len(blocks) != 1 || blocks[0].Name != "g" || string(blocks[0].Input) != `{"b":2}` {
		t.Fatalf("%+v %v", blocks, err)
	}
	// Cut short: no finish_reason, no message_stop. The text so far is
	// part of an answer, not an answer.
	if r, err := openAIStream("data: {\"choices\":[{\"delta\":{\"content\":\"partial\"}}]}\n\n"); err == nil {
		t.Fatalf("a stream cut short was taken: %+v", r)
	}
	if b, err := anthropicStream(ant); err == nil {
		t.Fatalf("a stream cut short was taken: %+v", b)
	}
}
