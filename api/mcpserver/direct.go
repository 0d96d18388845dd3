package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
)

// direct answers the one hot exchange itself: a single tools/call request
// POSTed on a live, initialized session of the same caller, with ordinary
// headers. It runs the same call as the SDK path and writes the answer the
// SDK would write, without the SDK's per-message machinery (a goroutine
// and a stream per request, and every message decoded and encoded several
// times), which cost more than the invoke itself. It reports false,
// with the request untouched, whenever the request is anything else, so
// every edge of the protocol stays the SDK's.
func (s *Server) direct(w http.ResponseWriter, r *http.Request, msg map[string]json.RawMessage) bool {
	sess := s.sessions.get(r.Header.Get("Mcp-Session-Id"))
	if sess == nil || !sess.ready.Load() || !sess.ownedBy(r) || !plainHeaders(r) {
		return false // another caller gets the SDK's 403 session user mismatch
	}
	c, _ := venue.CallerFrom(r.Context())
	call, ok := parseToolCall(msg)
	if !ok {
		return false
	}
	sess.begin()
	defer sess.end()
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	if !sess.claim(call.key, cancel) {
		writeMessage(w, http.StatusBadRequest, call.id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "duplicate in-flight request ID " + string(call.id)})
		return true
	}
	defer sess.release(call.key)
	res, left, err := s.runTool(ctx, c, call.name, call.args)
	if left != nil && sess.leave(call.key, left.ID, time.Now()) {
		s.e.Cancel(context.WithoutCancel(ctx), left.ID) // the answer goes nowhere: the request is over
	}
	if err != nil {
		writeMessage(w, http.StatusOK, call.id, nil, asRPCError(err))
		return true
	}
	writeMessage(w, http.StatusOK, call.id, res, nil)
	return true
}

// cancelled answers notifications/cancelled for a call the direct path
// runs on r's session: the call's job is cancelled and the call answered
// so; or for one whose request ended shortly before its job did (see
// lateCancel): the job is cancelled. Others (the SDK's calls, unknown ids)
// go on to the SDK. It reports whether it answered.
func (s *Server) cancelled(w http.ResponseWriter, r *http.Request, msg map[string]json.RawMessage) bool {
	if msg == nil || methodOf(msg) != "notifications/cancelled" || msg["id"] != nil {
		return false
	}
	sess := s.sessions.get(r.Header.Get("Mcp-Session-Id"))
	if sess == nil || !sess.ownedBy(r) {
		return false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	json.Unmarshal(msg["params"], &p)
	_, key, ok := requestID(p.RequestID)
	if !ok {
		return false
	}
	if !sess.cancel(key) {
		job, left := sess.takeLeft(key, time.Now())
		if !left {
			return false
		}
		// The call's request is over, its answer unread: the client only
		// wants the job stopped, and an error here would reach nobody.
		s.e.Cancel(r.Context(), job)
	}
	w.WriteHeader(http.StatusAccepted)
	return true
}

// toolCall is a tools/call request as the direct path takes it.
type toolCall struct {
	id   json.RawMessage // as the client sent it: a JSON string or integer
	key  string          // the id, for duplicate detection
	name string
	args json.RawMessage
}

// parseToolCall accepts exactly {"jsonrpc":"2.0","id":...,"method":
// "tools/call","params":{"name":...,"arguments":...}} (keys matched
// exactly, an integer or string id, no _meta); anything else is the SDK's.
func parseToolCall(msg map[string]json.RawMessage) (toolCall, bool) {
	if len(msg) != 4 ||
		string(msg["jsonrpc"]) != `"2.0"` || string(msg["method"]) != `"tools/call"` {
		return toolCall{}, false
	}
	id, key, ok := requestID(msg["id"])
	if !ok {
		return toolCall{}, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return toolCall{}, false
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil || name == "" {
		return toolCall{}, false
	}
	for k := range params {
		if k != "name" && k != "arguments" {
			return toolCall{}, false
		}
	}
	return toolCall{id: id, key: key, name: name, args: params["arguments"]}, true
}

// requestID reads a JSON-RPC id the direct path handles: a string (sent
// back re-encoded, as the SDK does) or an integer.
func requestID(raw json.RawMessage) (json.RawMessage, string, bool) {
	if len(raw) == 0 {
		return nil, "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, "", false
		}
		out, _ := json.Marshal(s)
		return out, "s" + s, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return nil, "", false
	}
	return json.RawMessage(strconv.FormatInt(n, 10)), "n" + strconv.FormatInt(n, 10), true
}

// plainHeaders reports whether r is a POST the SDK would take without a
// second look at its headers: JSON in, both JSON and SSE accepted, a
// protocol version before 2026-07-28 that the venue speaks, no resumption,
// no MCP routing headers, and not a loopback server reached by another
// name (the SDK's DNS-rebinding check).
func plainHeaders(r *http.Request) bool {
	h := r.Header
	if ct := h.Get("Content-Type"); ct != "application/json" && ct != "application/json; charset=utf-8" {
		return false // the SDK reads other spellings; they take its path
	}
	if !legacyVersion(h.Get("Mcp-Protocol-Version")) || len(h.Values("Last-Event-Id")) > 0 {
		return false
	}
	for k := range h {
		if k == "Mcp-Method" || k == "Mcp-Name" || strings.HasPrefix(k, "Mcp-Param-") {
			return false
		}
	}
	if !acceptsBoth(h.Values("Accept")) {
		return false
	}
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil && isLoopback(la.String()) && !isLoopback(r.Host) {
		return false
	}
	return true
}

// legacyVersion reports whether v is a protocol version of the stateful
// sessions the SDK negotiates.
func legacyVersion(v string) bool {
	switch v {
	case "2025-03-26", "2025-06-18", "2025-11-25":
		return true
	}
	return false
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// parseMessage reads body as one JSON-RPC message object, its members by
// exact name; nil if it is not one (a batch, or not JSON).
func parseMessage(body []byte) map[string]json.RawMessage {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return nil
	}
	return msg
}

// errTooLarge is readAtMost's error for a body over the limit.
var errTooLarge = errors.New("request body too large")

// readAtMost reads r's body if it is at most max bytes; errTooLarge if it
// is longer. r.Body is left to read again from the start.
func readAtMost(r *http.Request, max int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), rest), rest}
	if err == nil && int64(len(body)) > max {
		err = errTooLarge
	}
	return body, err
}

func (s *Server) maxBody() int64 {
	if s.opts.MaxBodyBytes > 0 {
		return s.opts.MaxBodyBytes
	}
	return 16 << 20
}

// asRPCError is the JSON-RPC error for an error of callTool, which are
// *jsonrpc.Error already.
func asRPCError(err error) *jsonrpc.Error {
	if je, ok := err.(*jsonrpc.Error); ok {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// writeMessage writes one JSON-RPC response as the SDK's JSON mode does.
func writeMessage(w http.ResponseWriter, status int, id json.RawMessage, result *mcp.CallToolResult, rpcErr *jsonrpc.Error) {
	out, ok := encodeResult(id, result)
	if !ok {
		msg := struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  any             `json:"result,omitempty"`
			Error   *jsonrpc.Error  `json:"error,omitempty"`
		}{"2.0", id, nil, rpcErr}
		if result != nil {
			msg.Result = result
		}
		var err error
		if out, err = json.Marshal(msg); err != nil {
			out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
				"error": &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the result could not be encoded"}})
		}
	}
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(out)
}

// encodeResult writes the response for the results callTool makes (one
// text part and structured content as JSON text) in one pass, the same
// JSON the SDK's encoder makes in several; ok is false for any other shape.
func encodeResult(id json.RawMessage, res *mcp.CallToolResult) (out []byte, ok bool) {
	if res == nil || len(res.Content) != 1 || res.Meta != nil {
		return nil, false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	structured, isRaw := res.StructuredContent.(json.RawMessage)
	if !ok || !isRaw || tc.Meta != nil || tc.Annotations != nil {
		return nil, false
	}
	text, err := json.Marshal(tc.Text)
	if err != nil {
		return nil, false
	}
	var b bytes.Buffer
	b.Grow(len(text) + len(structured) + len(id) + 100)
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":{"content":[{"type":"text","text":`)
	b.Write(text)
	b.WriteString(`}],"structuredContent":`)
	if json.Compact(&b, structured) != nil {
		return nil, false
	}
	if res.IsError {
		b.WriteString(`,"isError":true`)
	}
	b.WriteString(`}}`)
	return b.Bytes(), true
}
