package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/api/mcpserver"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/mcpbridge"
	"github.com/gridvenue/venue/runtime/outbound"
)

// MCPConfig tunes the MCP door and the bridge of remote MCP servers.
type MCPConfig struct {
	BridgeTimeout string `json:"bridgeTimeout"` // longest exchange with a bridged server, e.g. "30s" (the default)
}

func (c MCPConfig) bridgeTimeout() (time.Duration, error) {
	if c.BridgeTimeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.BridgeTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("mcp.bridgeTimeout %q: write a positive duration such as \"30s\"", c.BridgeTimeout)
	}
	return d, nil
}

// addBridge adds the MCP bridge's operations (v/ops/mcp/...) and its
// executor, which reaches remote servers under the venue's outbound policy.
func (m *Main) addBridge(o *operations) error {
	timeout, err := m.Config.MCP.bridgeTimeout()
	if err != nil {
		return err
	}
	entries, err := mcpbridge.Entries()
	if err != nil {
		return err
	}
	o.catalog = append(o.catalog, entries...)
	b := mcpbridge.New(mcpbridge.Config{CallTimeout: timeout, Logger: m.Logger,
		Outbound: outbound.Policy{AllowHosts: m.Config.AllowHosts, BlockHosts: m.Config.BlockHosts}})
	o.execs["mcp"] = b.Executor()
	return nil
}

// mountMCP serves /mcp behind the same caller middleware as the REST API,
// and the MCP discovery documents, which need no caller.
func (m *Main) mountMCP(mux *http.ServeMux) {
	srv := mcpserver.New(m.engine, mcpserver.Options{Name: m.Config.Name,
		Bridged: bridged{m.engine}, Logger: m.Logger})
	mux.Handle("/mcp", m.auth.Middleware(srv))
	mux.Handle("/.well-known/mcp", srv.Discovery())
	mux.Handle("/.well-known/mcp.json", srv.Discovery())
}

// bridged lists the bridged MCP tools a caller sees, for the MCP door.
type bridged struct{ e *runtime.Engine }

func (b bridged) BridgedOperations(ctx context.Context) ([]*venue.Operation, error) {
	return mcpbridge.Operations(ctx, b.e)
}
