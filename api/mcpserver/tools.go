package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
)

// toolSet is a list of tools and the operations behind them. The catalog's
// is built once; a caller's bridged tools are added per request.
type toolSet struct {
	byName map[string]*venue.Operation
	tools  []*mcp.Tool
}

func newToolSet(ops []*venue.Operation) *toolSet {
	ts := &toolSet{byName: map[string]*venue.Operation{}}
	ts.add(ops)
	return ts
}

// add lists ops not yet named; the first operation to claim a name keeps it,
// so a bridged tool can never shadow a catalog tool.
func (ts *toolSet) add(ops []*venue.Operation) {
	for _, op := range ops {
		name := ToolName(op)
		if name == "" || ts.byName[name] != nil {
			continue
		}
		ts.byName[name] = op
		ts.tools = append(ts.tools, &mcp.Tool{Name: name, Title: op.Title, Description: op.Description,
			InputSchema: inputSchema(op.Input)})
	}
}

// with returns the catalog's tools followed by extra ones.
func (ts *toolSet) with(extra []*venue.Operation) *toolSet {
	if len(extra) == 0 {
		return ts
	}
	out := &toolSet{byName: make(map[string]*venue.Operation, len(ts.byName)+len(extra)), tools: append([]*mcp.Tool(nil), ts.tools...)}
	for k, v := range ts.byName {
		out.byName[k] = v
	}
	out.add(extra)
	return out
}

// ToolName is op's MCP tool name: the entry's toolName if it sets one, else
// its display name in snake_case ("core:read" → "core_read",
// "agent:cancelTask" → "agent_cancel_task").
func ToolName(op *venue.Operation) string {
	if op.ToolName != "" {
		return op.ToolName
	}
	return snake(op.Name)
}

// snake is the venue's tool-name rule (venue.SnakeCase). Incoming names
// are read the same way, so "core:read" finds core_read.
func snake(s string) string { return venue.SnakeCase(s) }

// inputSchema is an operation's input schema as MCP wants it: an object
// schema. Operations that declare none take any object.
func inputSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	if m["type"] != "object" {
		m["type"] = "object"
		raw, _ = json.Marshal(m)
	}
	return raw
}
