package mcpserver

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Engine is what the door needs of the venue's engine.
type Engine interface {
	Invoke(ctx context.Context, req runtime.InvokeRequest) (*venue.Job, error)
	Operations() []*venue.Operation
	Identity() runtime.Identity
}

// Bridged lists the operations beyond the catalog that the caller in ctx
// may invoke as tools (bridged MCP servers' tools). Each operation's Path is
// the reference to invoke and its ToolName the tool's name.
type Bridged interface {
	BridgedOperations(ctx context.Context) ([]*venue.Operation, error)
}

// Options configure the door. Zero values mean the documented default.
type Options struct {
	Name           string        // serverInfo.title; default "Venue"
	Version        string        // serverInfo.version; default "0.5.0"
	Bridged        Bridged       // nil: only the catalog's operations are tools
	CallWait       time.Duration // how long tools/call waits for its job; default 120 s
	SessionTimeout time.Duration // idle MCP sessions are closed after this; default 30 minutes
	MaxBodyBytes   int64         // largest JSON-RPC request body; default 4 MiB
	Logger         *slog.Logger  // nil discards
}

// ServerName is the serverInfo name clients of the reference venue look for.
const ServerName = "covia-grid-mcp"

// Server serves /mcp. It is safe for concurrent use.
type Server struct {
	e       Engine
	opts    Options
	log     *slog.Logger
	catalog *toolSet
	handler http.Handler
}

// New builds the /mcp handler over engine e.
func New(e Engine, opts Options) *Server {
	if opts.Name == "" {
		opts.Name = "Venue"
	}
	if opts.Version == "" {
		opts.Version = "0.5.0"
	}
	if opts.CallWait <= 0 {
		opts.CallWait = 120 * time.Second
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	s := &Server{e: e, opts: opts, log: opts.Logger, catalog: newToolSet(e.Operations())}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: opts.Name, Version: opts.Version},
		&mcp.ServerOptions{Logger: opts.Logger, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	srv.AddReceivingMiddleware(s.tools)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{JSONResponse: true, Logger: opts.Logger, SessionTimeout: opts.SessionTimeout, MaxRequestBodyBytes: opts.MaxBodyBytes})
	s.handler = rpcErrors(bindCaller(h))
	return s
}

// ServeHTTP serves /mcp. The request's context must carry its caller.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// bindCaller hands the request's caller to the SDK as its token info: the
// SDK ties a session to the UserID that opened it (another DID gets 403
// "session user mismatch") and gives each request's TokenInfo to the method
// handlers, whose context is the session's, not the request's. The SDK sets
// TokenInfo only through its bearer middleware, so that middleware runs
// with a verifier that reads the caller our own auth already established.
func bindCaller(next http.Handler) http.Handler {
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := venue.CallerFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: c.DID, Extra: map[string]any{"caller": c}}, nil
	}
	inner := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := venue.CallerFrom(r.Context()); !ok {
			writeError(w, http.StatusUnauthorized, "Authentication required")
			return
		}
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer venue-caller") // checked already; the verifier ignores it
		inner.ServeHTTP(w, r)
	})
}

// callerOf returns the caller of the HTTP request that carried req.
func callerOf(req mcp.Request) (venue.Caller, bool) {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return venue.Caller{}, false
	}
	c, ok := extra.TokenInfo.Extra["caller"].(venue.Caller)
	return c, ok
}
