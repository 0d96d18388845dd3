package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/internal/jsonscan"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// codeSessionNotFound is the JSON-RPC code the TypeScript SDK's servers
// give an unknown session (implementation-defined range).
const codeSessionNotFound = -32001

// sdkRefusal is a plain-text answer of the SDK's HTTP handler (a status of
// 400 or more), held back so that the client gets a JSON-RPC error instead.
type sdkRefusal struct {
	status int
	text   string
}

// writeRefusal answers a request the SDK refused in plain text with a
// JSON-RPC error object under the same HTTP status: a code and a message
// the client can act on, and the request's id when it has a usable one.
// body is the request body ("" for GET and DELETE). "Parse error" is said
// only of a body that is not JSON; a request refused for its headers, its
// session or its size is valid JSON refused for another reason.
func writeRefusal(w http.ResponseWriter, r *http.Request, body []byte, ref sdkRefusal) {
	text := strings.TrimSpace(ref.text)
	msg := parseMessage(body)
	id := json.RawMessage("null")
	if msg != nil && validID(msg["id"]) {
		id = msg["id"]
	}
	var method string
	if msg != nil {
		json.Unmarshal(msg["method"], &method)
	}
	code, message := int64(jsonrpc.CodeInvalidRequest), "Invalid request: "+trimPrefixFold(text, "invalid request: ")
	var shape string
	if strings.Contains(text, "malformed payload") {
		shape = shapeProblem(body, msg)
	}
	switch {
	case len(bytes.TrimSpace(body)) > 0 && !json.Valid(body):
		code, message, id = jsonrpc.CodeParseError, "Parse error: the body is not valid JSON", json.RawMessage("null")
	case shape != "":
		// The SDK's words name its Go types (jsonrpc2.wireDecode).
		message = "Invalid request: " + shape
	case ref.status == http.StatusNotFound:
		// Without an id, so that clients read it as the spec's "session
		// gone" (the Go SDK's client decodes an error with an id as the
		// answer to its call and would never start a new session).
		code, message, id = codeSessionNotFound, "Session not found: it expired or was closed; initialize a new session", json.RawMessage("null")
	case ref.status == http.StatusForbidden && strings.Contains(text, "session user mismatch"):
		message = "Forbidden: this session was opened by another caller; initialize a session of your own"
	case ref.status >= 500:
		code, message = jsonrpc.CodeInternalError, "Internal error: "+text
	case strings.Contains(text, "Unsupported protocol version"):
		code = mcp.CodeUnsupportedProtocolVersion
		message = fmt.Sprintf("%s; the request's Mcp-Protocol-Version is %q", strings.TrimPrefix(text, "Bad Request: "), clip(r.Header.Get("Mcp-Protocol-Version")))
	case strings.Contains(text, "not handled") || strings.Contains(text, "unsupported"):
		if msg != nil && msg["id"] == nil {
			// A notification gets no answer, known or not (JSON-RPC).
			w.WriteHeader(http.StatusAccepted)
			return
		}
		// An answer in JSON-RPC, with HTTP 200 as for every other error
		// of a request the door read: clients (the TypeScript SDK) take a
		// 400 for a transport failure, not the -32601 it carries.
		code, message, ref.status = jsonrpc.CodeMethodNotFound, "Method not found: "+clip(method), http.StatusOK
	}
	writeRPC(w, ref.status, id, code, message)
}

// shapeProblem says why body, valid JSON, is no JSON-RPC message the SDK
// reads, "" if the SDK's reason is another. msg is body parsed as one
// message (parseMessage), nil if it is none.
func shapeProblem(body []byte, msg map[string]json.RawMessage) string {
	const example = `, such as {"jsonrpc": "2.0", "id": 1, "method": "ping"}`
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return ""
	case trimmed[0] != '{' && trimmed[0] != '[':
		return "the body must be a JSON-RPC message, an object" + example
	case trimmed[0] == '[':
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) == nil && len(batch) == 0 {
			return "the batch is empty: send at least one message" + example
		}
		return ""
	}
	if msg != nil && msg["method"] == nil && msg["result"] == nil && msg["error"] == nil {
		return "the message has no method: a request or notification names one" + example
	}
	return ""
}

// unclean answers a body that Go's decoder would read otherwise than a
// strict reader: text that is not UTF-8 (kept as given in raw arguments,
// which a job would store) and a member named twice at any level (Go keeps
// the last, so a proxy or log reading the first would see another call).
// The REST door refuses both alike. It reports whether it answered.
func unclean(w http.ResponseWriter, body []byte) bool {
	if !utf8.Valid(body) {
		writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeParseError,
			"Parse error: the body is not UTF-8 text, as JSON must be: send it encoded as UTF-8")
		return true
	}
	if name, found, _ := jsonscan.Duplicate(body); found {
		writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid request: the member %q is given more than once in one object; give each member once", name))
		return true
	}
	return false
}

// reinitialized answers an initialize sent on a live session of its
// caller. The SDK answers it with error code 0, which JSON-RPC does not
// define, and logs it at ERROR, so any client could fill the log. An
// unknown session or another caller's is left to the SDK's 404 and the
// door's 403. It reports whether it answered.
func (s *Server) reinitialized(w http.ResponseWriter, r *http.Request, msg map[string]json.RawMessage) bool {
	if msg == nil || methodOf(msg) != "initialize" || !validID(msg["id"]) {
		return false
	}
	if sess := s.sessions.get(r.Header.Get("Mcp-Session-Id")); sess == nil || !sess.ownedBy(r) {
		return false
	}
	writeRPC(w, http.StatusBadRequest, msg["id"], jsonrpc.CodeInvalidRequest,
		"Invalid request: this session is already initialized; to open another, send initialize without an Mcp-Session-Id header")
	return true
}

// badInitialize answers an initialize whose params the SDK would refuse
// with error code 0, which JSON-RPC does not define, in a message naming
// Go types, after opening a session nothing can use; or, params absent,
// in words said twice. It reports whether it answered.
func badInitialize(w http.ResponseWriter, msg map[string]json.RawMessage) bool {
	if msg == nil || !validID(msg["id"]) || methodOf(msg) != "initialize" {
		return false
	}
	if n := len(msg["params"]); n > maxInitializeParams {
		writeRPC(w, http.StatusRequestEntityTooLarge, msg["id"], jsonrpc.CodeInvalidParams, fmt.Sprintf(
			"Invalid params: initialize's params are %d bytes, over the venue's limit of %d: send only the capabilities and client info the session needs", n, maxInitializeParams))
		return true
	}
	problem := initializeProblem(msg["params"])
	if problem == "" {
		return false
	}
	writeRPC(w, http.StatusBadRequest, msg["id"], jsonrpc.CodeInvalidParams, "Invalid params: "+problem+
		`; initialize takes {"protocolVersion": "2025-06-18", "capabilities": {...}, "clientInfo": {"name": "...", "version": "..."}}`)
	return true
}

// maxInitializeParams bounds initialize's params. The SDK keeps them, as
// decoded, for the life of the session (capabilities.experimental and
// clientInfo are free-form): an audit's 20 initializes of 10 MB each,
// without a token, held 1.6 GB of live heap (some 77 MB a session, past
// 5 GB of resident memory), and one caller may keep 256 sessions for the
// idle timeout. Real clients send a few hundred bytes.
const maxInitializeParams = 64 << 10

// initializeParams is what the SDK decodes initialize's params into (its
// unexported initializeParamsV2, which reads capabilities.roots apart).
type initializeParams struct {
	mcp.InitializeParams
	Capabilities *struct {
		mcp.ClientCapabilities
		Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	} `json:"capabilities"`
}

// initializeProblem says what is wrong with initialize's params, or "".
// It decodes them as the SDK does (segmentio's decoder, names matched in
// their case), so that it refuses what the SDK would and nothing more, and
// names the member by its JSON path.
func initializeProblem(raw json.RawMessage) string {
	if k := bytes.TrimSpace(raw); len(k) == 0 || k[0] != '{' {
		return "initialize needs params, an object"
	}
	dec := segjson.NewDecoder(bytes.NewReader(raw))
	dec.DontMatchCaseInsensitiveStructFields()
	var p initializeParams
	err := dec.Decode(&p)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("params.%s must be %s", typeErr.Field, jsonKind(typeErr.Type))
	}
	return "the params do not have the shape of initialize's"
}

// jsonKind names the JSON a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "of another kind"
}

// batchedInitialize answers a JSON-RPC batch holding an initialize, which
// MCP forbids (2025-03-26, the last version with batches): the checks
// above read single messages, so in a batch the SDK would answer a bad one
// with code 0 and a session nothing can use. It reports whether it
// answered.
func batchedInitialize(w http.ResponseWriter, body []byte) bool {
	var batch []map[string]json.RawMessage
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &batch) != nil {
		return false
	}
	for _, msg := range batch {
		if methodOf(msg) == "initialize" {
			writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeInvalidRequest,
				"Invalid request: initialize must be sent alone, not in a batch")
			return true
		}
	}
	return false
}

// trimPrefixFold is s without prefix in any letter case, which the SDK's
// texts may start with where the door already says it.
func trimPrefixFold(s, prefix string) string {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):]
	}
	return s
}

// methodOf is a message's method, its escapes resolved as the SDK resolves
// them; "" if it has none that is a string.
func methodOf(msg map[string]json.RawMessage) string {
	var method string
	json.Unmarshal(msg["method"], &method)
	return method
}

// misshapen answers a message the SDK would take silently or answer in its
// own words: an id that is neither a string nor an integer, a request
// without a method (the SDK reads it as a response to nothing, 202), and
// params that are not an object (MCP params always are; the SDK's message
// names Go types). It reports whether it answered.
func misshapen(w http.ResponseWriter, msg map[string]json.RawMessage) bool {
	if msg == nil {
		return false
	}
	id, hasID := msg["id"]
	_, hasMethod := msg["method"]
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	if hasID && !validID(id) && string(bytes.TrimSpace(id)) != "null" {
		writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeInvalidRequest, "Invalid request: 'id' must be a string or an integer")
		return true
	}
	if !validID(id) {
		id = json.RawMessage("null")
	}
	switch {
	case hasID && !hasMethod && !hasResult && !hasError:
		writeRPC(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid request: the message has an id but no method")
		return true
	case !hasMethod || !hasID: // a notification gets no answer
		return false
	case !objectOrNull(msg["params"]):
		writeRPC(w, http.StatusOK, id, jsonrpc.CodeInvalidParams, "params must be an object")
		return true
	}
	return false
}

// sessionless answers a request that only an initialized session may
// make, sent without an Mcp-Session-Id header, with the 400 the MCP
// transport asks of a server that requires sessions. The SDK would answer it 200
// with error code 0, which JSON-RPC does not define, saying only that the
// method "is invalid during session initialization". A request of the
// sessionless protocol (2026-07-28 on, by header or _meta) goes on to the
// SDK, whose refusal names the versions this stateful server speaks.
// It reports whether it answered.
func sessionless(w http.ResponseWriter, r *http.Request, msg map[string]json.RawMessage) bool {
	if msg == nil || r.Header.Get("Mcp-Session-Id") != "" || !validID(msg["id"]) ||
		r.Header.Get("Mcp-Protocol-Version") >= sessionlessProtocol || carriesProtocolVersion(msg["params"]) {
		return false
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || sessionFree(method) {
		return false
	}
	writeRPC(w, http.StatusBadRequest, msg["id"], jsonrpc.CodeInvalidRequest,
		fmt.Sprintf("Invalid request: %s needs a session, and the request has no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id its answer carries with every request", clip(method)))
	return true
}

// sessionlessProtocol is the first MCP version whose requests need no
// session.
const sessionlessProtocol = "2026-07-28"

// sessionFree reports whether the SDK answers method before initialization.
func sessionFree(method string) bool {
	switch method {
	case "initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "server/discover":
		return true
	}
	return false
}

// carriesProtocolVersion reports whether params name a protocol version in
// _meta, as requests of the sessionless protocol do.
func carriesProtocolVersion(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	return json.Unmarshal(params, &p) == nil && p.Meta[mcp.MetaKeyProtocolVersion] != nil
}

// unnamedTool answers a tools/call request without a non-empty string
// tool name, which the SDK would answer naming Go types (or with "Unknown
// tool: " and nothing after it). It reports whether it answered. It runs
// after the direct path, which takes only calls that name a tool.
func unnamedTool(w http.ResponseWriter, msg map[string]json.RawMessage) bool {
	if msg == nil || methodOf(msg) != "tools/call" || !validID(msg["id"]) || namesTool(msg["params"]) {
		return false
	}
	writeRPC(w, http.StatusOK, msg["id"], jsonrpc.CodeInvalidParams, "Invalid params: tools/call needs 'name', the tool's name as a non-empty string")
	return true
}

// badLogLevel answers a logging/setLevel request whose level is not one
// of the eight of RFC 5424 that MCP names, with the -32602 the MCP spec
// asks for; the SDK would keep any string and answer {}, and the client
// would believe a level set that no log message knows. It reports whether
// it answered.
func badLogLevel(w http.ResponseWriter, msg map[string]json.RawMessage) bool {
	if msg == nil || methodOf(msg) != "logging/setLevel" || !validID(msg["id"]) {
		return false
	}
	var p struct {
		Level json.RawMessage `json:"level"`
	}
	var level string
	if json.Unmarshal(msg["params"], &p) == nil && json.Unmarshal(p.Level, &level) == nil && slices.Contains(logLevels, level) {
		return false
	}
	writeRPC(w, http.StatusOK, msg["id"], jsonrpc.CodeInvalidParams,
		"Invalid params: logging/setLevel needs 'level', one of "+strings.Join(logLevels, ", "))
	return true
}

// logLevels are the levels of logging/setLevel, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// namesTool reports whether tools/call params hold a non-empty string name.
func namesTool(params json.RawMessage) bool {
	var p struct {
		Name json.RawMessage `json:"name"`
	}
	var name string
	return json.Unmarshal(params, &p) == nil && json.Unmarshal(p.Name, &name) == nil && name != ""
}

// validID reports whether raw is an id the SDK answers unchanged: a string,
// or an integer that fits in 64 bits (it reads every number as one, so 1.5
// would come back as 1).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	// raw came out of a decoded message, so it is JSON: no sign '+',
	// no leading zeros, which ParseInt would take.
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

func objectOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || raw[0] == '{' || string(raw) == "null"
}

func writeRPC(w http.ResponseWriter, status int, id json.RawMessage, code int64, message string) {
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("X-Content-Type-Options")
	w.WriteHeader(status)
	w.Write(out)
}

// rpcErrorWriter holds back a plain-text answer of 400 or more.
type rpcErrorWriter struct {
	http.ResponseWriter
	refused *sdkRefusal
	body    bytes.Buffer
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.refused = &sdkRefusal{status: code}
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.refused != nil {
		if w.body.Len() < 1024 {
			w.body.Write(p)
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// refusal returns what the SDK refused with, nil if it answered normally.
func (w *rpcErrorWriter) refusal() *sdkRefusal {
	if w.refused != nil {
		w.refused.text = w.body.String()
	}
	return w.refused
}

// Flush passes through, so that SSE responses still stream.
func (w *rpcErrorWriter) Flush() {
	if w.refused == nil {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
