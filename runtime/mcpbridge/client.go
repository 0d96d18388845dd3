package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
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
	if t.bearer == "" {
		return t.out.Do(req, nil)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+t.bearer)
	return t.out.Do(req, []string{"Authorization"})
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
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return nil, b.failure(ctx, s, "could not be reached", err)
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
		res, err := sess.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, b.failure(ctx, s, "failed to list its tools", err)
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
// open. A reused session the server no longer knows (it restarted, or
// expired the session) is replaced by a new one and the call made once
// more: the server answered 404 without running it.
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
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		var rpcErr *jsonrpc.Error
		switch {
		case err == nil || errors.As(err, &rpcErr):
			b.pool.put(k, sess) // a JSON-RPC error leaves the session as it was
		default:
			sess.Close()
		}
		if err == nil {
			return res, nil
		}
		if reused && !retried && errors.Is(err, mcp.ErrSessionMissing) && ctx.Err() == nil {
			b.pool.drop(k)
			continue
		}
		return nil, b.failure(ctx, s, "failed to run tool "+tool, err)
	}
}

// failure says what went wrong with a server in words that help: down,
// too slow, refused by the venue's policy, or not speaking MCP.
func (b *Bridge) failure(ctx context.Context, s server, what string, err error) error {
	var ve *venue.Error
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return venue.Errorf(venue.ETIMEOUT, "MCP server %s (%s) did not answer within %s", s.name, s.url, b.cfg.CallTimeout)
	case errors.As(err, &ve) && (ve.Code == venue.EFORBIDDEN || ve.Code == venue.EINVALID):
		return venue.Errorf(ve.Code, "MCP server %s (%s): %s", s.name, s.url, ve.Message)
	case strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), "401"):
		// The server's 401 is about the caller's secret, not the caller's
		// own credentials at this venue: not EUNAUTHORIZED, which /run
		// answers 401 and ends the job as a capability denied.
		return venue.Errorf(venue.EINVALID, "MCP server %s (%s) refused the credentials (401): check the secret named by 'auth'", s.name, s.url)
	}
	return venue.Errorf(venue.EUNAVAILABLE, "MCP server %s (%s) %s: %s", s.name, s.url, what, clip(oneLine(err.Error())))
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return fmt.Sprint(s)
}
