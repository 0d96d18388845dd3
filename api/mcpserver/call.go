package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// tools answers tools/list and tools/call from the venue's operations, as
// the caller of each request sees them; every other method goes to the SDK.
func (s *Server) tools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && p.Cursor != "" {
				// Every tool is in the one page, so no cursor was ever handed out.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: unknown cursor: the venue lists every tool in one page; list without a cursor"}
			}
			ts, err := s.toolsFor(ctx, req)
			if err != nil {
				return nil, err
			}
			res := &mcp.ListToolsResult{Tools: ts.tools}
			res.CacheScope = "private" // the list depends on who asks
			return res, nil
		case "tools/call":
			call, ok := req.(*mcp.CallToolRequest)
			if !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params must be an object"}
			}
			return s.call(ctx, call)
		case "initialize":
			res, err := next(ctx, method, req)
			if c, ok := callerOf(req); ok && err == nil {
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
					s.sessions.add(ss, c)
				}
			}
			return res, err
		case "notifications/initialized":
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				if sess := s.sessions.get(ss.ID()); sess != nil {
					sess.ready.Store(true)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// toolsFor is the catalog's tools plus the caller's bridged ones.
func (s *Server) toolsFor(ctx context.Context, req mcp.Request) (*toolSet, error) {
	c, ok := callerOf(req)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Authentication required"}
	}
	return s.toolsOf(venue.WithCaller(ctx, c), c), nil
}

// toolsOf is the catalog's tools plus those bridged for caller c, the
// caller in ctx.
func (s *Server) toolsOf(ctx context.Context, c venue.Caller) *toolSet {
	if s.opts.Bridged == nil {
		return s.catalog
	}
	// The cache is keyed by DID, and a caller confined to part of its
	// namespace (a UCAN sent as the bearer) shares its issuer's DID: it
	// would be handed the issuer's pins and bridges, and the issuer its
	// narrower set. A confined caller's set is neither taken nor kept.
	cacheable := c.Bound() == nil
	var ts *toolSet
	var gen uint64
	if cacheable {
		if ts, gen = s.toolCache.get(c.DID); ts != nil {
			return ts
		}
	}
	since := time.Now()
	extra, err := s.opts.Bridged.BridgedOperations(ctx)
	if err != nil {
		s.log.Warn("list bridged tools", "caller", c.DID, "err", err)
		return s.catalog // the catalog still works when a bridge listing does not
	}
	ts = s.catalog.with(extra)
	if cacheable {
		s.toolCache.put(c.DID, ts, since, gen)
	}
	return ts
}

// call is tools/call on the SDK path.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (mcp.Result, error) {
	c, ok := callerOf(req)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Authentication required"}
	}
	if req.Params == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "params must be an object with 'name' and 'arguments'"}
	}
	return s.callTool(venue.WithCaller(ctx, c), c, req.Params.Name, req.Params.Arguments)
}

// callTool runs the named tool's operation as a job of caller c (also the
// caller in ctx) and waits for it. Failures of the job are tool results
// with isError, so a model can read them; only a tool that does not exist,
// arguments that are not an object, and failures of the venue itself are
// JSON-RPC errors (*jsonrpc.Error).
func (s *Server) callTool(ctx context.Context, c venue.Caller, name string, rawArgs json.RawMessage) (*mcp.CallToolResult, error) {
	res, _, err := s.runTool(ctx, c, name, rawArgs)
	return res, err
}

// runTool is callTool, also returning the job the call left running when
// its request ended first (nil if it did not), which the client may still
// cancel.
func (s *Server) runTool(ctx context.Context, c venue.Caller, name string, rawArgs json.RawMessage) (*mcp.CallToolResult, *venue.Job, error) {
	args := bytes.TrimSpace(rawArgs)
	if len(args) > 0 && args[0] != '{' && string(args) != "null" {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Tool arguments must be a JSON object"}
	}
	op, err := s.lookup(ctx, c, name)
	if err != nil {
		return nil, nil, err
	}
	input, ucans, err := splitUCANs(args)
	if err != nil {
		return errorResult(err.Error(), ""), nil, nil
	}
	rec, err := s.e.Invoke(ctx, runtime.InvokeRequest{Operation: op.Path, Input: input, Wait: s.opts.CallWait, UCANs: ucans})
	if err != nil {
		res, err := s.refused(c, err)
		return res, nil, err
	}
	if !rec.Status.Terminal() && ctx.Err() != nil {
		if context.Cause(ctx) == errCallCancelled {
			return s.cancelledCall(ctx, c, rec), nil, nil
		}
		return abandoned(rec), rec, nil
	}
	return s.result(op, rec), nil, nil
}

// errCallCancelled is the cause with which the client's
// notifications/cancelled ends a call the direct path runs.
var errCallCancelled = errors.New("the client cancelled the call")

// cancelledCall answers a call the client cancelled with
// notifications/cancelled while its request was open: its job is cancelled
// too, as the client asked.
func (s *Server) cancelledCall(ctx context.Context, c venue.Caller, rec *venue.Job) *mcp.CallToolResult {
	if n, err := s.e.Cancel(venue.WithCaller(context.WithoutCancel(ctx), c), rec.ID); err == nil {
		rec = n
	}
	return errorResult(fmt.Sprintf("The tool call was cancelled; job %s is %s", rec.ID, rec.Status), rec.ID.String())
}

// abandoned answers a call whose request ended before its job otherwise:
// the client went away, which MCP says is no cancellation, or the SDK
// delivered a cancellation, which cannot be told from that. The job goes
// on and the answer says so, rather than that it timed out.
func abandoned(rec *venue.Job) *mcp.CallToolResult {
	return errorResult(fmt.Sprintf("The tool call ended before its job did. Job ID: %s (status %s); it goes on: poll it with grid_job_result, or cancel it with PUT /api/v1/jobs/%s/cancel",
		rec.ID, rec.Status, rec.ID), rec.ID.String())
}

// splitUCANs takes the "ucans" member out of a tool call's arguments: UCAN
// tokens that prove grants for this call, as "ucans" does in a REST
// invoke. The operation gets the arguments without it.
func splitUCANs(args json.RawMessage) (json.RawMessage, []string, error) {
	if !bytes.Contains(args, []byte(`"ucans"`)) && !bytes.Contains(args, []byte(`\u`)) {
		return args, nil, nil // the common case, without decoding (a key may be spelled with escapes)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m["ucans"] == nil {
		return args, nil, nil // the input check reports what is wrong
	}
	var ucans []string
	if err := json.Unmarshal(m["ucans"], &ucans); err != nil {
		return nil, nil, fmt.Errorf("'ucans' must be an array of UCAN tokens (JWT strings)")
	}
	delete(m, "ucans")
	input, err := json.Marshal(m)
	return input, ucans, err
}

// lookup finds the operation behind a tool name, trying the name as sent
// and in snake_case, in the catalog first and then among bridged tools.
func (s *Server) lookup(ctx context.Context, c venue.Caller, name string) (*venue.Operation, error) {
	if op := s.catalog.find(name); op != nil {
		return op, nil
	}
	if s.opts.Bridged != nil {
		ts := s.toolsOf(ctx, c)
		if op := ts.find(name); op != nil {
			return op, nil
		}
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + clip(name)}
}

func (ts *toolSet) find(name string) *venue.Operation {
	if op := ts.byName[name]; op != nil {
		return op
	}
	return ts.byName[snake(name)]
}

// refused turns an invoke the engine would not start into the caller's
// answer: a request it could fix (bad arguments, a missing capability) is
// a tool error it can read; a failure of the venue is a JSON-RPC error.
func (s *Server) refused(c venue.Caller, err error) (*mcp.CallToolResult, error) {
	switch venue.ErrorCode(err) {
	case venue.EINTERNAL, venue.EUNAVAILABLE, "":
		s.log.Error("tools/call", "caller", c.DID, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: " + venue.ErrorMessage(err)}
	}
	return errorResult(venue.ErrorMessage(err), ""), nil
}

// result shapes the job record of op as a tool result.
func (s *Server) result(op *venue.Operation, rec *venue.Job) *mcp.CallToolResult {
	switch rec.Status {
	case venue.StatusComplete:
		if op.Name == bridgedAdapter {
			if res, ok := remoteResult(rec.Output); ok {
				return res
			}
		}
		return outputResult(rec.Output)
	case venue.StatusFailed, venue.StatusCancelled, venue.StatusRejected:
		msg := rec.Error
		if msg == "" {
			msg = "Job " + string(rec.Status)
		}
		return errorResult(msg, rec.ID.String())
	case venue.StatusInputRequired, venue.StatusAuthRequired:
		// The wait ended because the job asks its caller, which a tool
		// result cannot answer.
		return errorResult(fmt.Sprintf("The job is waiting for its caller (status %s), asking: %s. Job ID: %s; answer with POST /api/v1/jobs/%s, then poll it with grid_job_result",
			rec.Status, clip(string(rec.Message)), rec.ID, rec.ID), rec.ID.String())
	}
	return errorResult(fmt.Sprintf("Tool call timed out after %s. Job ID: %s (status %s); poll it with grid_job_result",
		s.opts.CallWait, rec.ID, rec.Status), rec.ID.String())
}

// outputResult carries the output as text and as structured content; an
// output that is not an object is wrapped as {"result": ...}, since
// structured content must be an object.
func outputResult(out json.RawMessage) *mcp.CallToolResult {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	structured := out
	if out[0] != '{' {
		structured, _ = json.Marshal(map[string]json.RawMessage{"result": out})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}},
		StructuredContent: json.RawMessage(structured)}
}

// bridgedAdapter runs bridged MCP tools; its output is the remote tool's
// result, {"content": [...], "structuredContent": {...}}.
const bridgedAdapter = "mcp:call"

// remoteResult passes a bridged tool's result on as the server gave it
// (from the job's output, so masked like the record): its content parts
// (images, audio, resources, not only text) and its structured content, if
// an object. ok is false for an output that does not read as a tool
// result, which is then carried like any other output.
func remoteResult(out json.RawMessage) (*mcp.CallToolResult, bool) {
	var raw struct {
		Content    json.RawMessage `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	var res mcp.CallToolResult
	if json.Unmarshal(out, &raw) != nil || len(raw.Content) == 0 || json.Unmarshal(out, &res) != nil {
		return nil, false
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	res.IsError, res.Meta, res.StructuredContent = false, nil, nil
	if st := bytes.TrimSpace(raw.Structured); len(st) > 0 && st[0] == '{' {
		res.StructuredContent = json.RawMessage(st)
	}
	return &res, true
}

func errorResult(msg, jobID string) *mcp.CallToolResult {
	st := map[string]string{"message": msg}
	if jobID != "" {
		st["job"] = jobID
	}
	raw, _ := json.Marshal(st)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, StructuredContent: json.RawMessage(raw)}
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
