package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/api/mcpserver"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/mcpbridge"
	"github.com/gridvenue/venue/runtime/outbound"
)

// MCPConfig tunes the MCP door and the bridge of remote MCP servers.
type MCPConfig struct {
	BridgeTimeout  string `json:"bridgeTimeout"`  // longest exchange with a bridged server, e.g. "30s" (the default)
	SessionTimeout string `json:"sessionTimeout"` // an MCP session unused this long is closed; default "30m"
	// IncludePathPrefixes are the catalog paths whose operations are tools
	// of /mcp (as in the reference venue); default ["v/ops/"]. Bridged
	// tools are offered whatever it says.
	IncludePathPrefixes []string `json:"includePathPrefixes"`
	// TrustForwardedHeaders lets X-Forwarded-Proto and X-Forwarded-Host
	// name the endpoint in /.well-known/mcp, as the reference venue does
	// behind a proxy; default true.
	TrustForwardedHeaders *bool `json:"trustForwardedHeaders"`
}

// includes reports whether the catalog operation at path is a tool.
func (c MCPConfig) includes(path string) bool {
	prefixes := c.IncludePathPrefixes
	if len(prefixes) == 0 {
		prefixes = []string{"v/ops/"}
	}
	for _, p := range prefixes {
		p = strings.TrimSuffix(p, "/")
		if strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// validate checks the MCP settings before anything starts.
func (c MCPConfig) validate() error {
	_, bridge := c.bridgeTimeout()
	_, session := c.sessionTimeout()
	return errors.Join(bridge, session, c.validatePrefixes())
}

func (c MCPConfig) validatePrefixes() error {
	for _, p := range c.IncludePathPrefixes {
		if !strings.HasPrefix(p, "v/") || strings.Trim(p, "/") == "v" {
			return fmt.Errorf("mcp.includePathPrefixes: %q is not a catalog path under v/, such as \"v/ops/\"", p)
		}
	}
	return nil
}

func (c MCPConfig) bridgeTimeout() (time.Duration, error) {
	return positiveDuration("mcp.bridgeTimeout", c.BridgeTimeout)
}

func (c MCPConfig) sessionTimeout() (time.Duration, error) {
	return positiveDuration("mcp.sessionTimeout", c.SessionTimeout)
}

// positiveDuration reads a duration setting; "" is 0, the default.
func positiveDuration(name, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q: write a positive duration such as \"30s\"", name, v)
	}
	return d, nil
}

// addBridge adds the MCP bridge's operations (v/ops/mcp/...) and its
// executor, which reaches remote servers under the venue's outbound policy.
// It also checks the rest of the MCP settings, before anything starts.
func (m *Main) addBridge(o *operations) error {
	if err := m.Config.MCP.validate(); err != nil {
		return err
	}
	timeout, _ := m.Config.MCP.bridgeTimeout() // checked by validate
	entries, err := mcpbridge.Entries()
	if err != nil {
		return err
	}
	o.catalog = append(o.catalog, entries...)
	for _, en := range o.catalog {
		if !en.Value && m.Config.MCP.includes(en.Path) {
			m.mcp.tools = append(m.mcp.tools, en.Path)
		}
	}
	b := mcpbridge.New(mcpbridge.Config{CallTimeout: timeout, Logger: m.Logger, Changed: m.mcp.toolsChanged,
		Outbound: outbound.Policy{AllowHosts: m.Config.AllowHosts, BlockHosts: m.Config.BlockHosts}})
	o.execs["mcp"] = b.Executor()
	m.bridge = b
	return nil
}

// mountMCP serves /mcp behind the same caller middleware as the REST API,
// and the MCP discovery documents, which need no caller.
func (m *Main) mountMCP(mux *http.ServeMux) {
	idle, _ := m.Config.MCP.sessionTimeout() // checked by addBridge
	trust := m.Config.MCP.TrustForwardedHeaders
	srv := mcpserver.New(m.engine, mcpserver.Options{Name: m.Config.Name, Tools: m.toolOperations(),
		Bridged: bridged{m.engine}, Logger: m.Logger, SessionTimeout: idle, MaxBodyBytes: m.Config.MaxBodyBytes,
		AuthRequired: m.Config.anonymousLevel() == "none", IgnoreForwarded: trust != nil && !*trust})
	m.mcp.door.Store(srv)
	m.rest.SetBridged(bridged{m.engine}) // GET /api/v1/operations lists them too
	mux.Handle("/mcp", m.auth.Middleware(srv))
	mux.Handle("/.well-known/mcp", srv.Discovery())
	mux.Handle("/.well-known/mcp.json", srv.Discovery())
}

// toolOperations are the catalog operations /mcp offers as tools, in path
// order.
func (m *Main) toolOperations() []*venue.Operation {
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: m.engine.Identity().DID})
	ops := make([]*venue.Operation, 0, len(m.mcp.tools))
	for _, p := range m.mcp.tools {
		op, err := m.engine.Operation(ctx, p) // a catalog path: resolved alike for every caller
		if err != nil {
			m.Logger.Error("an MCP tool's catalog entry does not resolve", "op", p, "err", err)
			continue
		}
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b *venue.Operation) int { return strings.Compare(a.Path, b.Path) })
	return ops
}

// mcpLink carries what the MCP door needs from the steps that run before
// it is built: which catalog paths are tools, and (for the bridge) a way
// to tell the door when bridged tools change.
type mcpLink struct {
	tools []string // catalog paths offered as tools
	door  atomic.Pointer[mcpserver.Server]
}

func (l *mcpLink) toolsChanged() {
	if d := l.door.Load(); d != nil {
		d.ToolsChanged()
	}
}

// bridged lists the operations a caller sees beyond the catalog, for the
// doors: the bridged MCP tools, then the caller's pins.
type bridged struct{ e *runtime.Engine }

func (b bridged) BridgedOperations(ctx context.Context) ([]*venue.Operation, error) {
	ops, err := mcpbridge.Operations(ctx, b.e)
	if err != nil {
		return nil, err
	}
	pins, err := b.e.PinnedOperations(ctx)
	if c := venue.ErrorCode(err); c == venue.EFORBIDDEN || c == venue.EUNAUTHORIZED {
		return ops, nil // a caller that may not read o/ (anonymous, a confined token) still sees the bridges
	} else if err != nil {
		return nil, err
	}
	return append(ops, pins...), nil
}
