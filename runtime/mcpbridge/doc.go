// Package mcpbridge bridges remote MCP servers into the venue's catalog.
// It runs the "mcp" adapter family: v/ops/mcp/server/add, remove and
// refresh manage bridges, v/ops/mcp/tools-list lists bridged tools, and
// mcp:call runs one bridged tool on its server with the official MCP Go
// SDK's streamable-HTTP client.
//
// A bridge of scope "user" lives in its owner's namespace: its record at
// w/mcp/<name> and one operation per tool at o/mcp/<name>/<tool>, which
// the engine resolves like any pin. A bridge of scope "venue" lives the
// same way in the venue's own namespace and is invoked as
// v/ops/mcp/<name>/<tool>; managing one needs the mcp/manage ability.
//
// Every request to a bridged server goes through the venue's outbound
// policy (runtime/outbound), so a bridge cannot reach loopback or private
// addresses unless the venue allows the host. The bearer token is a secret
// reference resolved host-side on each call and masked in the job record;
// records hold the reference, never the value.
//
// Client sessions to bridged servers are kept open between calls, per
// caller, server and token (pool.go), and replaced when a server no longer
// knows them.
package mcpbridge
