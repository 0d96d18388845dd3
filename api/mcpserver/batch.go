package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxBatch bounds a JSON-RPC batch, as the reference venue does.
const maxBatch = 20

// batchesUntil is the first MCP version without JSON-RPC batches.
const batchesUntil = "2025-06-18"

// badBatch answers a batch the door would refuse a part of, one too long,
// or one on a session whose protocol has no batches, and reports whether
// it answered. The SDK takes batches on older protocols and answers each
// message, but the door's checks (ids, params, tool names, log levels)
// look at single messages: in a batch, 1.5 was answered as id 1 and a
// level "bogus" was kept. A refused part refuses the batch, naming it.
func (s *Server) badBatch(w http.ResponseWriter, r *http.Request, body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	var batch []json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &batch) != nil {
		return false
	}
	refuse := func(format string, args ...any) bool {
		writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeInvalidRequest, "Invalid request: "+fmt.Sprintf(format, args...))
		return true
	}
	if sess := s.sessions.get(r.Header.Get("Mcp-Session-Id")); sess != nil {
		if p := sess.ss.InitializeParams(); p != nil && p.ProtocolVersion >= batchesUntil {
			return refuse("this session speaks MCP %s, which has no batches: send each message in a request of its own", p.ProtocolVersion)
		}
	}
	if len(batch) > maxBatch {
		return refuse("a batch holds at most %d messages, this one %d: send fewer at a time", maxBatch, len(batch))
	}
	for i, m := range batch {
		msg := parseMessage(m)
		if msg == nil {
			return refuse("message %d of the batch is not a JSON-RPC message object", i+1)
		}
		var out captured
		if misshapen(&out, msg) || unnamedTool(&out, msg) || badLogLevel(&out, msg) {
			return refuse("message %d of the batch: %s", i+1, out.message())
		}
	}
	return false
}

// captured records what a check would have answered.
type captured struct {
	header http.Header
	body   bytes.Buffer
}

func (c *captured) Header() http.Header {
	if c.header == nil {
		c.header = http.Header{}
	}
	return c.header
}

func (c *captured) Write(b []byte) (int, error) { return c.body.Write(b) }
func (c *captured) WriteHeader(int)             {}

// message is the error message of the JSON-RPC answer captured.
func (c *captured) message() string {
	var a struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(c.body.Bytes(), &a)
	return a.Error.Message
}
