package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAnthropicStream_BadIndex: a content block at a negative index
// crashed the venue process (index out of range), and one at a huge index
// made it allocate that many blocks (an index of 3,000,000 took some
// 2 GB): a stream the API would never send fails the call instead.
func TestAnthropicStream_BadIndex(t *testing.T) {
	for _, idx := range []string{"-1", "3000000", "1"} {
		body := `data: {"type":"content_block_start","index":` + idx + `,"content_block":{"type":"text","text":""}}` + "\n\n"
		if _, err := anthropicStream(body); err == nil || !strings.Contains(err.Error(), "index") {
			t.Fatalf("index %s: %v", idx, err)
		}
	}
	neg := `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		`data: {"type":"content_block_delta","index":-5,"delta":{"type":"text_delta","text":"x"}}` + "\n\n" +
		`data: {"type":"message_stop"}` + "\n\n"
	if _, err := anthropicStream(neg); err != nil {
		t.Fatal(err)
	}
}

func TestNotJSON(t *testing.T) {
	if s, ok := notJSON(rawArgs("{not json")); !ok || s != "{not json" {
		t.Fatalf("%q %v", s, ok)
	}
	for _, args := range []string{`{"a":1}`, `{"_raw":"{\"a\":1}"}`, `{"_raw":"x","b":2}`, `[1]`, `{}`} {
		if _, ok := notJSON(json.RawMessage(args)); ok {
			t.Fatalf("%s", args)
		}
	}
}
