package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

// maxTools bounds how many tools one bridge may bring in, and maxPages how
// many list pages are read to find them: a server answering endless pages
// must not hold a job forever.
const (
	maxTools = 1000
	maxPages = 50
)

// policyTransport sends the SDK client's requests through the venue's
// outbound policy, adding the bearer token. The Authorization header is
// named secret, so it never follows a redirect to another host.
type policyTransport struct {
	out    *outbound.Client
	bearer string
}

func (t *policyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	secret := []string(nil)
	if t.bearer != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.bearer)
		secret = []string{"Authorization"}
	}
	resp, err := t.out.Do(req, secret)
	if x := exchangeOf(req.Context()); x != nil && err == nil {
		x.observe(resp)
	}
	return resp, err
}

// server is one bridged server as a call sees it.
type server struct {
	name   string // the bridge's name, for messages
	url    string
	bearer string // the token's plaintext, "" for none
}

// connect opens an MCP session with s. The caller closes it.
func (b *Bridge) connect(ctx context.Context, s server) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "venue-mcp-bridge", Version: "0.5.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: &policyTransport{out: b.out, bearer: s.bearer}}}
	ctx, x := withExchange(ctx, s.bearer)
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return nil, b.failure(ctx, s, "open a session", err, x)
	}
	return sess, nil
}

// listTools connects to s and returns its tools, every page of them.
func (b *Bridge) listTools(ctx context.Context, s server) ([]*mcp.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	sess, err := b.connect(ctx, s)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var tools []*mcp.Tool
	cursor := ""
	for range maxPages {
		xctx, x := withExchange(ctx, s.bearer)
		res, err := sess.ListTools(xctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, b.failure(ctx, s, "list its tools", err, x)
		}
		tools = append(tools, res.Tools...)
		if len(tools) > maxTools {
			return nil, venue.Errorf(venue.EINVALID, "MCP server %s offers more than %d tools: bridge a narrower endpoint", s.name, maxTools)
		}
		if cursor = res.NextCursor; cursor == "" {
			return tools, nil
		}
	}
	return nil, venue.Errorf(venue.EUNAVAILABLE, "MCP server %s kept answering tools/list with more pages (over %d)", s.name, maxPages)
}

// callTool runs one tool on s for caller, on a pooled session when one is
// open. A reused session the server refused before running the call (it
// restarted, or expired the session) is replaced by a new one and the call
// made once more.
func (b *Bridge) callTool(ctx context.Context, caller string, s server, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.CallTimeout)
	defer cancel()
	k := keyOf(caller, s)
	for retried := false; ; retried = true {
		sess := b.pool.take(k)
		reused := sess != nil
		if !reused {
			var err error
			if sess, err = b.connect(ctx, s); err != nil {
				return nil, err
			}
		}
		xctx, x := withExchange(ctx, s.bearer)
		res, err := sess.CallTool(xctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		var rpcErr *jsonrpc.Error
		switch {
		case err == nil || errors.As(err, &rpcErr):
			b.pool.put(k, sess) // a JSON-RPC error leaves the session as it was
		case ctx.Err() != nil && !errors.Is(err, mcp.ErrConnectionClosed):
			// The job was cancelled or ran out of time, not the session:
			// the SDK tells the server so in the background, which a
			// close now would cut off, leaving the remote call (a job on
			// another venue) running to its own deadline.
			b.pool.put(k, sess)
		default:
			sess.Close()
		}
		if err == nil {
			return res, nil
		}
		if reused && !retried && ctx.Err() == nil && staleSession(err, x) {
			b.pool.drop(k)
			continue
		}
		return nil, b.failure(ctx, s, "run tool "+tool, err, x)
	}
}

// staleSession reports whether a call on a reused session failed because
// the server no longer knows the session: it refused the request at the
// transport, before any JSON-RPC answer, with 404 (what the MCP spec
// prescribes), 400 (what the TypeScript SDK's servers answer, e.g.
// server-everything's "No valid session ID provided") or 410. Such a call
// did not run, so it may be made again on a new session. A JSON-RPC error
// is the server's answer to the call and is never retried.
func staleSession(err error, x *exchange) bool {
	if errors.Is(err, mcp.ErrSessionMissing) {
		return true
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return false
	}
	switch status, _ := x.refusal(); status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

// failure says what went wrong with a server when it tried to do step, in
// words that help: down, too slow, refused by the venue's policy or by the
// server (in its own words), or not speaking MCP. The cause is kept whole;
// a long chain of wrapped errors loses its outer parts, never the
// innermost cause.
func (b *Bridge) failure(ctx context.Context, s server, step string, err error, x *exchange) error {
	err = b.describe(ctx, s, step, err, x)
	if s.bearer == "" {
		return err
	}
	return venue.Errorf(venue.ErrorCode(err), "%s", hidingPieces(venue.ErrorMessage(err), s.bearer))
}

// minPiece is the shortest piece of a token hidingPieces hides: shorter
// runs shared with a token are as likely the message's own words.
const minPiece = 8

// hidingPieces is msg with every run of at least minPiece bytes that is
// also a run of secret replaced by Hidden. The SDK quotes what a server
// sent cut short ("invalid character 'g' looking for beginning of value:
// ghp_LongTokenABCDEFGHIJKLMNOPQRS..."), and a server that echoes the
// token there leaves a piece of it the job's masker, which knows only
// whole values, would not hide: for a venue-scope bridge, a piece of the
// adder's token shown to every caller.
func hidingPieces(msg, secret string) string {
	if len(secret) < minPiece {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		n := 0
		for j := 0; j+minPiece <= len(secret) && n < len(msg)-i; j++ {
			k := 0
			for i+k < len(msg) && j+k < len(secret) && msg[i+k] == secret[j+k] {
				k++
			}
			n = max(n, k)
		}
		if n >= minPiece {
			b.WriteString(runtime.Hidden)
			i += n
			continue
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

// describe is failure's message, before pieces of the token are hidden.
func (b *Bridge) describe(ctx context.Context, s server, step string, err error, x *exchange) error {
	status, reason := x.refusal()
	var ve *venue.Error
	isVenue := errors.As(err, &ve)
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return venue.Errorf(venue.ETIMEOUT, "MCP server %s (%s) did not answer within %s", s.name, s.url, b.cfg.CallTimeout)
	case status == http.StatusUnauthorized:
		// The server's 401 is about the caller's secret, not the caller's
		// own credentials at this venue: not EUNAUTHORIZED, which /run
		// answers 401 and ends the job as a capability denied.
		return venue.Errorf(venue.EINVALID, "MCP server %s (%s) refused the credentials (401: %s): check the secret named by 'auth'", s.name, s.url, reason)
	case isVenue && (ve.Code == venue.EUNAVAILABLE || ve.Code == venue.EFORBIDDEN || ve.Code == venue.EINVALID):
		// the outbound client's words: a network failure or the policy
		return venue.Errorf(ve.Code, "MCP server %s (%s) could not be reached: %s", s.name, s.url, ve.Message)
	case isVenue:
		return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) failed to %s: %s", s.name, s.url, step, ve.Message)
	case x.garbage() != "":
		return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) answered something that is not MCP JSON-RPC: %s", s.name, s.url, x.garbage())
	case errors.As(err, &rpcErr):
		return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) failed to %s: JSON-RPC error %d: %s", s.name, s.url, step, rpcErr.Code, clippedHiding(oneLine(rpcErr.Message), 300, s.bearer))
	case status != 0:
		return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) refused to %s: HTTP %d: %s", s.name, s.url, step, status, reason)
	}
	return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) failed to %s: %s", s.name, s.url, step, cause(err))
}

// cause is err's text on one line, shortened by dropping the outer parts
// of its chain ("calling ...: sending ...: <cause>"), which name the SDK's
// steps, not what went wrong.
func cause(err error) string {
	msg := oneLine(err.Error())
	const max = 200
	for len(msg) > max {
		i := strings.Index(msg, ": ")
		if i < 0 {
			return "…" + msg[len(msg)-max:]
		}
		msg = msg[i+2:]
	}
	return msg
}

func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}
