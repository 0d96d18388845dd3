package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// toolOp is the part of a bridged tool's metadata that says where it runs.
type toolOp struct {
	Operation struct {
		Server      string `json:"server"`
		Remote      string `json:"remoteToolName"`
		Bridge      string `json:"bridge"`
		Auth        string `json:"auth"`
		AddedBy     string `json:"addedBy"`
		VenueSecret string `json:"venueSecret"`
	} `json:"operation"`
}

// call runs a bridged tool (adapter mcp:call) on its server and returns
// {"content": [...], "structuredContent": ...} as the server answered. A
// tool result with isError fails the job with the tool's text.
func (b *Bridge) call(ctx context.Context, op *venue.Operation, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var meta toolOp
	if err := json.Unmarshal(op.Meta, &meta); err != nil || meta.Operation.Remote == "" {
		return nil, venue.Errorf(venue.EINVALID, "Operation %s is not a bridged MCP tool: its metadata needs operation.server and operation.remoteToolName", op.Path)
	}
	m := meta.Operation
	u, err := NormalizeURL(m.Server)
	if err != nil {
		return nil, err
	}
	scope := ScopeUser
	if strings.HasPrefix(op.Path, "v/ops/mcp/") {
		scope = ScopeVenue
	}
	if scope == ScopeUser && m.Auth != "" {
		if err := ownBridge(ctx, env, op, m.Bridge, u, m.Auth); err != nil {
			return nil, err
		}
	}
	if scope == ScopeVenue && m.Auth != "" && m.AddedBy != "" {
		if err := delegated(ctx, env, op, m.Bridge, u, m.Auth, m.AddedBy); err != nil {
			return nil, err
		}
	}
	bearer, err := b.bearer(ctx, env, scope, m.Auth, m.AddedBy, m.VenueSecret)
	if err != nil {
		return nil, err
	}
	name := m.Bridge
	if name == "" {
		name = u
	}
	res, err := b.callTool(ctx, env.Caller().DID, server{name: name, url: u, bearer: bearer}, m.Remote, input)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, venue.Errorf(venue.EINVALID, "MCP tool %s on %s failed: %s", m.Remote, name, clippedHiding(text(res.Content), 1000, bearer))
	}
	out := map[string]any{"content": res.Content}
	if res.Content == nil {
		out["content"] = []mcp.Content{}
	}
	if res.StructuredContent != nil {
		out["structuredContent"] = res.StructuredContent
	}
	return json.Marshal(out)
}

// ownBridge checks that the caller added the bridge a tool's metadata
// names, to the same server with the same secret, before that secret is
// sent: the metadata of an asset is anyone's to write, and one registered
// with "auth": "s/GITHUB_TOKEN" and a server of its author's would
// otherwise carry each caller's token there. The record must carry the
// venue's proof, since a module the caller runs can write w/mcp as well.
// It is read as the caller unconfined: the venue's check, not the job's read.
func ownBridge(ctx context.Context, env *runtime.Env, op *venue.Operation, bridge, url, auth string) error {
	owner := env.Caller().DID
	p := &place{scope: ScopeUser, ctx: venue.WithCaller(ctx, venue.Caller{DID: owner}), owner: owner, e: env.Engine()}
	if ok, err := p.recorded(bridge, record{URL: url, Auth: auth}); ok || err != nil {
		return err
	}
	return venue.Errorf(venue.EFORBIDDEN, "Operation %s would send your secret %s to %s, but no MCP bridge of yours (w/mcp/%s) "+
		"goes there with that secret: only a bridge you added with v/ops/mcp/server/add may use your secrets", op.Path, clip(auth), clip(url), clip(bridge))
}

// delegated checks that a venue-scope tool's metadata, which names whose
// secret it sends (addedBy) and where, matches the venue bridge record the
// venue itself wrote for it: the venue's o/mcp and w/mcp are the lattice
// of the venue's DID, which an admin (or a holder of a grant on it) can
// write by hand, and a tool written there naming any user as addedBy would
// otherwise send that user's secret to a server of the writer's choosing.
func delegated(ctx context.Context, env *runtime.Env, op *venue.Operation, bridge, url, auth, addedBy string) error {
	e := env.Engine()
	p := &place{scope: ScopeVenue, ctx: env.AsVenue(ctx), owner: e.Identity().DID, e: e}
	if ok, err := p.recorded(bridge, record{URL: url, Auth: auth, AddedBy: addedBy}); ok || err != nil {
		return err
	}
	return venue.Errorf(venue.EFORBIDDEN, "Operation %s would send a secret of %s to %s, but no venue MCP bridge (w/mcp/%s of the venue) that the venue recorded "+
		"goes there with that secret: an admin must add the bridge again with v/ops/mcp/server/add", op.Path, clip(addedBy), clip(url), clip(bridge))
}

// bearer resolves a bridge's token at call time: a user-scope bridge's
// from the caller's secrets, a venue-scope bridge's from the secrets of
// the admin who added it (addedBy). Either way the job's masker learns the
// value, and deleting the secret ends the bridge's access. A venue-scope
// bridge added before that holds the venue's copy of the token instead
// (venueSecret), made at add time.
func (b *Bridge) bearer(ctx context.Context, env *runtime.Env, scope, auth, addedBy, venueSecret string) (string, error) {
	if scope == ScopeVenue && venueSecret != "" && addedBy == "" {
		v, err := env.VenueSecret(ctx, venueSecret)
		if err != nil {
			return "", venue.Errorf(venue.EINVALID, "The venue's token for this MCP bridge is gone: an admin must add the bridge again")
		}
		return v, nil
	}
	if auth == "" {
		return "", nil
	}
	name, err := venue.ParseSecretRef(auth)
	if err != nil {
		return "", err
	}
	if scope == ScopeVenue {
		v, err := env.DelegatedSecret(ctx, addedBy, name)
		if venue.ErrorCode(err) == venue.ENOTFOUND {
			return "", venue.Errorf(venue.EINVALID, "This MCP bridge's token is gone: the admin who added it deleted the secret s/%s it sends; an admin must store it again or add the bridge again", name)
		}
		return v, err
	}
	v, err := env.Secret(ctx, name)
	if err != nil {
		return "", venue.Errorf(venue.EINVALID, "Could not resolve auth reference s/%s: store that secret to use this MCP bridge", name)
	}
	return v, nil
}

// text joins the text parts of a tool result.
func text(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "(no text)"
	}
	return strings.Join(parts, " ")
}
