package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rpcErrors turns the SDK's plain-text 400 answers to a POST (a body that
// is not JSON, a method it does not know, an invalid message) into JSON-RPC
// error objects, so a client sees a code and a message it can act on
// instead of text/plain. Everything else passes through untouched.
func rpcErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		head := &headBuffer{max: 4096}
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(r.Body, head), r.Body}
		rw := &rpcErrorWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		if rw.captured {
			writeRPCError(w, head.Bytes(), rw.body.String())
		}
	})
}

// writeRPCError answers with a JSON-RPC error for the message in body,
// whose id it echoes when it can read one.
func writeRPCError(w http.ResponseWriter, body []byte, text string) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	parsed := json.Unmarshal(body, &msg) == nil
	code, message := jsonrpc.CodeInvalidRequest, "Invalid request: "+strings.TrimSpace(text)
	whole := len(body) < 4096 // headBuffer keeps 4096 bytes: a shorter body is all there was
	switch {
	case strings.Contains(text, "not handled") || strings.Contains(text, "unsupported"):
		code, message = jsonrpc.CodeMethodNotFound, "Method not found: "+clip(msg.Method)
	case (whole && !json.Valid(body)) || (!whole && strings.Contains(text, "malformed")):
		code, message = jsonrpc.CodeParseError, "Parse error: the body is not valid JSON"
	case parsed && msg.Method == "" && len(msg.ID) > 0:
		message = "Missing method"
	}
	id := msg.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("X-Content-Type-Options")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(out)
}

// misshapen answers a message the SDK would take silently or answer in its
// own words: a request without a method (the SDK reads it as a response
// to nothing, 202) and params that are not an object (MCP params always
// are; the SDK's message names Go types). It reports whether it answered.
func misshapen(w http.ResponseWriter, msg map[string]json.RawMessage) bool {
	if msg == nil {
		return false
	}
	id, hasID := msg["id"]
	_, hasMethod := msg["method"]
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	if !validID(id) {
		id = json.RawMessage("null")
	}
	switch {
	case hasID && !hasMethod && !hasResult && !hasError:
		writeRPC(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid request: the message has an id but no method")
		return true
	case hasMethod && hasID && !objectOrNull(msg["params"]): // a notification gets no answer
		writeRPC(w, http.StatusOK, id, jsonrpc.CodeInvalidParams, "params must be an object")
		return true
	}
	return false
}

// validID reports whether raw is a JSON-RPC id this door echoes: a
// string or a number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

func objectOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || raw[0] == '{' || string(raw) == "null"
}

func writeRPC(w http.ResponseWriter, status int, id json.RawMessage, code int64, message string) {
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

// rpcErrorWriter holds back a plain-text 400.
type rpcErrorWriter struct {
	http.ResponseWriter
	captured bool
	body     bytes.Buffer
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.captured = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.captured {
		if w.body.Len() < 1024 {
			w.body.Write(p)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes through, so that SSE responses still stream.
func (w *rpcErrorWriter) Flush() {
	if !w.captured {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
