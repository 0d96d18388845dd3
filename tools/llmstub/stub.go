package llmstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Reply is one scripted model turn: text, tool calls, or both.
type Reply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
}

// ToolCall is a call the scripted model makes.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Request is a request the stub received, for tests to inspect.
type Request struct {
	API  string         // "openai" or "anthropic"
	Body map[string]any // the decoded JSON body
}

// Stub answers requests with its script's replies, in order. Once the
// script runs out it answers "(script ended)". It is safe for concurrent
// use.
type Stub struct {
	Key string // the API key requests must carry

	mu       sync.Mutex
	script   []Reply
	requests []Request
}

// New returns a stub expecting key and answering with replies.
func New(key string, replies ...Reply) *Stub { return &Stub{Key: key, script: replies} }

// Add appends replies to the script.
func (s *Stub) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Requests returns the requests received so far.
func (s *Stub) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Stub) next(api string, body map[string]any) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{API: api, Body: body})
	if len(s.script) == 0 {
		return Reply{Text: "(script ended)"}
	}
	r := s.script[0]
	s.script = s.script[1:]
	return r
}

// ServeHTTP routes by path suffix, as providers' base URLs vary.
func (s *Stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		apiError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		apiError(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		if r.Header.Get("Authorization") != "Bearer "+s.Key {
			apiError(w, http.StatusUnauthorized, "Incorrect API key provided")
			return
		}
		s.openAI(w, body)
	case strings.HasSuffix(r.URL.Path, "/messages"):
		if r.Header.Get("x-api-key") != s.Key || r.Header.Get("anthropic-version") == "" {
			apiError(w, http.StatusUnauthorized, "invalid x-api-key or missing anthropic-version")
			return
		}
		s.anthropic(w, body)
	default:
		apiError(w, http.StatusNotFound, "unknown endpoint "+r.URL.Path)
	}
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
}

// sse writes Server-Sent Events.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	return &sse{w: w}
}

func (e *sse) send(event string, v any) {
	if event != "" {
		fmt.Fprintf(e.w, "event: %s\n", event)
	}
	b, _ := json.Marshal(v)
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func args(tc ToolCall) string {
	if len(tc.Arguments) == 0 {
		return "{}"
	}
	return string(tc.Arguments)
}
