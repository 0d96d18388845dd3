package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Engine is what the door needs of the venue's engine.
type Engine interface {
	Invoke(ctx context.Context, req runtime.InvokeRequest) (*venue.Job, error)
	Cancel(ctx context.Context, id venue.JobID) (*venue.Job, error)
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
	Name            string             // serverInfo.title; default "Venue"
	Version         string             // serverInfo.version; default "0.5.0"
	Tools           []*venue.Operation // the catalog operations offered as tools; nil: Engine.Operations()
	Bridged         Bridged            // nil: only the catalog's operations are tools
	CallWait        time.Duration      // how long tools/call waits for its job; default 120 s
	SessionTimeout  time.Duration      // idle MCP sessions are closed after this; default 30 minutes
	ToolsTTL        time.Duration      // how long a caller's bridged tools are cached; default 2 s
	MaxBodyBytes    int64              // largest JSON-RPC request body; default 16 MiB, as the REST API
	KeepAlive       time.Duration      // how often an idle GET stream gets an SSE comment; default 30 s
	AuthRequired    bool               // discovery says a bearer token is required (no anonymous callers)
	IgnoreForwarded bool               // discovery names the endpoint by the base URL only, ignoring X-Forwarded-Proto/Host
	Logger          *slog.Logger       // nil discards
}

// ServerName is the serverInfo name clients of the reference venue look for.
const ServerName = "covia-grid-mcp"

// Server serves /mcp. It is safe for concurrent use.
type Server struct {
	e         Engine
	opts      Options
	log       *slog.Logger
	catalog   *toolSet
	toolCache *toolCache
	sessions  *sessions
	sdk       *mcp.Server
	handler   http.Handler
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
	if opts.ToolsTTL <= 0 {
		opts.ToolsTTL = 2 * time.Second
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 30 * time.Second
	}
	if opts.Tools == nil {
		opts.Tools = e.Operations()
	}
	s := &Server{e: e, opts: opts, log: opts.Logger, catalog: newToolSet(opts.Tools),
		toolCache: newToolCache(opts.ToolsTTL), sessions: newSessions(opts.SessionTimeout)}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: opts.Name, Version: opts.Version},
		&mcp.ServerOptions{Logger: sdkLog(opts.Logger), Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}})
	srv.AddReceivingMiddleware(s.tools)
	s.sdk = srv
	// No SessionTimeout: s.sessions closes idle sessions, since it also
	// sees the calls the direct path answers.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{JSONResponse: true, Logger: sdkLog(opts.Logger), MaxRequestBodyBytes: s.maxBody()})
	s.handler = bindCaller(h)
	return s
}

// isInitialized reports whether msg is the client's notifications/initialized.
func isInitialized(msg map[string]json.RawMessage) bool {
	return msg != nil && methodOf(msg) == "notifications/initialized" && msg["id"] == nil
}

// ServeHTTP serves /mcp. The request's context must carry its caller.
// A plain tools/call on a live session is answered directly; everything
// else goes to the SDK, and every POST counts as use of its session. What
// the SDK refuses in plain text is answered as a JSON-RPC error.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		if body, err = readAtMost(r, s.maxBody()); err != nil {
			s.unreadable(w, err)
			return
		}
		var framed *sseFrame
		if r, framed = negotiate(w, r); framed != nil {
			w = framed
			defer framed.finish()
		}
		if unclean(w, body) || batchedInitialize(w, body) || s.badBatch(w, r, body) {
			return
		}
		msg := parseMessage(body)
		if badInitialize(w, msg) || misshapen(w, msg) || s.direct(w, r, msg) || s.cancelled(w, r, msg) || sessionless(w, r, msg) || unnamedTool(w, msg) || badLogLevel(w, msg) || s.reinitialized(w, r, msg) {
			return
		}
		if sess := s.sessions.get(r.Header.Get("Mcp-Session-Id")); sess != nil && sess.ownedBy(r) {
			sess.begin()
			defer sess.end()
			if isInitialized(msg) {
				// The SDK takes the notification in after its 202: a tools/call
				// sent at once went to the SDK's path, where a cancel cannot be
				// told from a client gone away (abandoned), until it had.
				sess.ready.Store(true)
			}
		}
	}
	if r.Method == http.MethodGet {
		withKeepAlive(w, r, s.opts.KeepAlive, s.serveSDK(body))
		return
	}
	s.serveSDK(body)(w, r)
}

// serveSDK hands a request to the SDK, answering what it refuses in plain
// text as a JSON-RPC error.
func (s *Server) serveSDK(body []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		rw := &rpcErrorWriter{ResponseWriter: w}
		s.handler.ServeHTTP(rw, r)
		if ref := rw.refusal(); ref != nil {
			writeRefusal(w, r, body, *ref)
		}
	}
}

// unreadable answers a POST whose body is over the limit or could not be
// read.
func (s *Server) unreadable(w http.ResponseWriter, err error) {
	if errors.Is(err, errTooLarge) {
		writeRPC(w, http.StatusRequestEntityTooLarge, json.RawMessage("null"), jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid request: the body is over the venue's limit of %d bytes", s.maxBody()))
		return
	}
	if venue.ErrorCode(err) == venue.EUNAVAILABLE { // the venue's budget of request bodies, which set Retry-After
		writeRPC(w, http.StatusServiceUnavailable, json.RawMessage("null"), jsonrpc.CodeInternalError, venue.ErrorMessage(err))
		return
	}
	writeRPC(w, http.StatusBadRequest, json.RawMessage("null"), jsonrpc.CodeInvalidRequest, "Invalid request: the body could not be read")
}

// ToolsChanged tells the sessions that their tool lists may have changed
// (notifications/tools/list_changed), e.g. after a bridge was added or
// removed. The SDK sends that notification only when its own tool registry
// changes, and to every session, so a placeholder tool is registered and
// removed (its calls would still be answered by s.tools, never the SDK):
// every session is told, also those whose list did not change, and
// re-lists.
func (s *Server) ToolsChanged() {
	s.toolCache.reset()
	const placeholder = "venue_tools_changed"
	s.sdk.AddTool(&mcp.Tool{Name: placeholder, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.sdk.RemoveTools(placeholder)
}

// bindCaller hands the request's caller to the SDK as its token info: the
// SDK ties a session to the UserID that opened it (sessionUser: another
// gets 403 "session user mismatch") and gives each request's TokenInfo to the method
// handlers, whose context is the session's, not the request's. The SDK sets
// TokenInfo only through its bearer middleware, so that middleware runs
// with a verifier that reads the caller our own auth already established.
func bindCaller(next http.Handler) http.Handler {
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := venue.CallerFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: sessionUser(c), Extra: map[string]any{"caller": c}}, nil
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

// sessionUser is who owns the MCP sessions a caller opens: its DID, and
// under a UCAN sent as the bearer the share too. A share's holder acts as
// its issuer (one DID) confined to the share: keyed by the DID alone, the
// holder could drive the issuer's sessions, and the issuer the holder's.
func sessionUser(c venue.Caller) string {
	if sh := c.Share(); sh != "" {
		return c.DID + "#share:" + sh
	}
	return c.DID
}
