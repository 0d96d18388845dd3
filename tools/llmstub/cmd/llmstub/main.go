// Command llmstub serves a scripted stand-in for the OpenAI and Anthropic
// APIs on loopback: llmstub -listen 127.0.0.1:9100 -key sk-test script.json,
// where script.json is a JSON list of replies ({"text": ...} or
// {"toolCalls": [{"name": ..., "arguments": {...}}]}), answered in order.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/gridvenue/venue/tools/llmstub"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9100", "address to listen on")
	key := flag.String("key", "sk-test", "the API key requests must carry")
	flag.Parse()
	var replies []llmstub.Reply
	if flag.NArg() > 0 {
		b, err := os.ReadFile(flag.Arg(0))
		if err != nil {
			log.Fatal(err)
		}
		if err := json.Unmarshal(b, &replies); err != nil {
			log.Fatalf("script %s: %v", flag.Arg(0), err)
		}
	}
	log.Printf("llmstub on http://%s (OpenAI: /v1/chat/completions, Anthropic: /v1/messages)", *listen)
	log.Fatal(http.ListenAndServe(*listen, llmstub.New(*key, replies...)))
}
