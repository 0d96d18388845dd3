// Package mcpserver is the venue's MCP door: the streamable-HTTP endpoint
// /mcp (POST for JSON-RPC, GET for the session's server-to-client stream,
// DELETE to end a session) on the official MCP Go SDK, and the discovery
// documents /.well-known/mcp.json and /.well-known/mcp.
//
// Every operation the caller may invoke is a tool: the catalog's v/ops
// entries, and the MCP servers the caller (or the venue) bridged in. A tool
// call is an ordinary invoke through the engine, with the caller of the
// HTTP request, so it is authorised, recorded as a job and masked exactly as
// a REST invoke is. A job that fails is a tool result with isError; an
// output that is not a JSON object is wrapped as {"result": <output>}; a
// bridged tool's result is passed on with the server's content parts and
// structured content. A
// top-level "ucans" member of the arguments carries UCANs for the call and
// is taken out of the input.
//
// The SDK runs the sessions and every exchange but one: a plain tools/call
// on an initialized session is answered directly (direct.go), since the
// SDK's per-message work cost more than the call. The door also closes idle
// sessions itself (sessions.go), and tells sessions when bridged tools
// change (ToolsChanged).
//
// The package expects a caller in every request's context (the venue's auth
// middleware puts it there); it binds each MCP session to the DID that
// opened it, so one caller cannot drive another's session.
package mcpserver
