package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

type manageInput struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	Auth  string `json:"auth"`
	Scope string `json:"scope"`
}

// bridgeOutput is what add and refresh answer.
type bridgeOutput struct {
	Name     string   `json:"name"`
	Scope    string   `json:"scope"`
	URL      string   `json:"url"`
	Tools    []string `json:"tools"`
	Ops      []string `json:"operations"`
	Total    int      `json:"total"`
	Warnings []string `json:"warnings"`
}

// add bridges a server: it checks the URL and the secret, lists the
// server's tools and records one operation per tool.
func (b *Bridge) add(ctx context.Context, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var in manageInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Input is not valid: %v", err)
	}
	u, err := NormalizeURL(in.URL)
	if err != nil {
		return nil, err
	}
	p, err := placeOf(ctx, env, in.Scope)
	if err != nil {
		return nil, err
	}
	r := &record{Name: in.Name, URL: u, Scope: p.scope, Auth: in.Auth, AddedBy: env.Caller().DID, Added: time.Now().UnixMilli()}
	var warnings []string
	old, err := p.load(in.Name)
	if err == nil {
		warnings = append(warnings, fmt.Sprintf("replaced the bridge %q to %s", in.Name, old.URL))
		r.Added = old.Added
	}
	bearer, err := b.addSecret(ctx, env, r)
	if err != nil {
		return nil, err
	}
	out, err := b.sync(ctx, p, r, server{name: in.Name, url: u, bearer: bearer}, warnings)
	if err != nil && !strings.Contains(in.URL, "://") && venue.ErrorCode(err) == venue.EUNAVAILABLE {
		return nil, venue.Errorf(venue.EUNAVAILABLE, "%s (the URL has no scheme, so https was tried: write http:// for a server without TLS)", venue.ErrorMessage(err))
	}
	if err == nil && old != nil && old.VenueSecret != "" {
		// The copy an earlier venue made of the token, which the tools
		// just saved no longer read (and those before them did, until now).
		if err := p.e.DeleteSecret(p.ctx, old.VenueSecret); err != nil && venue.ErrorCode(err) != venue.ENOTFOUND {
			return nil, err
		}
	}
	return out, err
}

// addSecret resolves the caller's secret named by r.Auth, to list the
// server's tools with. A venue-scope bridge's calls resolve it again each
// time, as the adder's (DelegatedSecret): everyone calls its tools, but
// the token stays the adder's to delete or replace.
func (b *Bridge) addSecret(ctx context.Context, env *runtime.Env, r *record) (string, error) {
	if r.Auth == "" {
		return "", nil
	}
	name, err := secretName(r.Auth, env.Caller().DID)
	if err != nil {
		return "", err
	}
	r.Auth = "s/" + name
	v, err := env.Secret(ctx, name)
	if err != nil {
		return "", venue.Errorf(venue.EINVALID, "Could not resolve auth reference %s: store the token first (PUT /api/v1/secrets/%s)", r.Auth, name)
	}
	return v, nil
}

// secretName reads 'auth', a reference to a secret of the caller:
// "s/NAME", or "<the caller's DID>/s/NAME". Anything else, a token pasted in
// for instance, is refused, and its value is never repeated (it is masked
// in the job record too: 'auth' is a secret field of server/add).
// Returns EINVALID.
func secretName(auth, caller string) (string, error) {
	ref := auth
	if strings.HasPrefix(ref, "did:") {
		owner, rest, _ := strings.Cut(ref, "/")
		if owner != caller {
			return "", venue.Errorf(venue.EINVALID, "'auth' names another user's secret: a bridge can use only your own secrets (s/NAME)")
		}
		ref = rest
	}
	name, ok := strings.CutPrefix(strings.TrimPrefix(ref, "/"), "s/")
	if !ok || !venue.ValidSecretName(name) {
		return "", venue.Errorf(venue.EINVALID, "'auth' must name a secret as s/NAME (NAME: letters, digits, '_', '-' or '.'), not hold the token itself: store the token with PUT /api/v1/secrets/NAME, then pass \"auth\": \"s/NAME\"")
	}
	return name, nil
}

// named reads the input of refresh and remove and loads the bridge it names.
func named(ctx context.Context, input json.RawMessage, env *runtime.Env) (*place, *record, error) {
	var in manageInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, nil, venue.Errorf(venue.EINVALID, "Input is not valid: %v", err)
	}
	p, err := placeOf(ctx, env, in.Scope)
	if err != nil {
		return nil, nil, err
	}
	r, err := p.load(in.Name)
	if err != nil {
		return nil, nil, err
	}
	return p, r, nil
}

// refresh lists a bridged server's tools again.
func (b *Bridge) refresh(ctx context.Context, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	p, r, err := named(ctx, input, env)
	if err != nil {
		return nil, err
	}
	if p.scope == ScopeVenue && r.AddedBy != "" && !proven(p.e, p.owner, ScopeVenue, r) {
		// Written by hand, or by a venue whose proof did not cover whose
		// secret the bridge sends: its addedBy is not to be trusted.
		if r.VenueSecret == "" {
			return nil, venue.Errorf(venue.EFORBIDDEN, "The venue bridge %q was not recorded by this venue as it stands: an admin must add it again with v/ops/mcp/server/add", r.Name)
		}
		r.AddedBy = "" // a bridge of an earlier venue: it goes on with the venue's copy of the token
	}
	if p.scope == ScopeUser && r.Auth != "" && !proven(p.e, p.owner, ScopeUser, r) {
		// Written by something other than server/add (a module the owner
		// ran may write w/mcp), or by a venue that recorded no proof: the
		// refresh would send the owner's secret wherever the record says
		// and then vouch for it.
		return nil, venue.Errorf(venue.EFORBIDDEN, "The bridge %q (w/mcp/%s) was not recorded by this venue as it stands (it was added by an earlier version, "+
			"or changed since): add it again with v/ops/mcp/server/add, naming its url and auth, rather than send your secret %s to %s", r.Name, r.Name, clip(r.Auth), clip(r.URL))
	}
	bearer, err := b.bearer(ctx, env, p.scope, r.Auth, r.AddedBy, r.VenueSecret)
	if err != nil {
		return nil, err
	}
	return b.sync(ctx, p, r, server{name: r.Name, url: r.URL, bearer: bearer}, nil)
}

// sync lists the server's tools and saves them as operations of r.
func (b *Bridge) sync(ctx context.Context, p *place, r *record, s server, warnings []string) (json.RawMessage, error) {
	tools, err := b.listTools(ctx, s)
	if err != nil {
		return nil, err
	}
	out := bridgeOutput{Name: r.Name, Scope: p.scope, URL: r.URL, Tools: []string{}, Ops: []string{}, Warnings: warnings}
	metas := map[string]json.RawMessage{}
	named := map[string]bool{} // tool names on /mcp, which must be unique too
	r.Tools = nil
	for _, t := range tools {
		if s.bearer != "" && strings.Contains(strings.ToLower(t.Name), strings.ToLower(s.bearer)) {
			// Its name becomes a path, a tool name and a list entry,
			// none of which the masker reaches in every form.
			out.Warnings = append(out.Warnings, "skipped a tool whose name holds the bridge's token")
			continue
		}
		seg := segment(t.Name)
		if _, dup := metas[seg]; dup || t.Name == "" || named[toolName(r.Name, seg)] {
			out.Warnings = append(out.Warnings, fmt.Sprintf("skipped tool %q: its name clashes with another tool's", clip(t.Name)))
			continue
		}
		named[toolName(r.Name, seg)] = true
		meta, warn := b.toolMeta(p, r, seg, t)
		if warn != "" {
			out.Warnings = append(out.Warnings, warn)
		}
		// A server may repeat the token in a description or a schema:
		// what is saved is read by every caller of the bridge, and by
		// every caller of the venue for scope venue.
		metas[seg] = p.mask(meta)
		r.Tools = append(r.Tools, seg)
		out.Tools = append(out.Tools, toolName(r.Name, seg))
		out.Ops = append(out.Ops, p.ref(r.Name, seg))
	}
	r.Refreshed = time.Now().UnixMilli()
	if err := p.save(r, metas); err != nil {
		return nil, err
	}
	out.Total = len(out.Tools)
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return json.Marshal(out)
}

// toolMeta is the operation metadata of one bridged tool. Its schema is
// the server's, unless the venue cannot compile it: then any object is
// accepted and the server judges the arguments.
func (b *Bridge) toolMeta(p *place, r *record, seg string, t *mcp.Tool) (json.RawMessage, string) {
	input, warn := json.RawMessage(`{"type":"object"}`), ""
	if raw, err := json.Marshal(t.InputSchema); err == nil && string(raw) != "null" {
		if _, err := runtime.CompileSchema(p.ref(r.Name, seg), raw); err == nil {
			input = raw
		} else {
			warn = fmt.Sprintf("tool %q: its input schema does not compile here (%s); arguments go unchecked to the server", clip(t.Name), clip(venue.ErrorMessage(err)))
		}
	}
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	if title == "" {
		title = t.Name
	}
	op := map[string]any{"adapter": "mcp:call", "toolName": toolName(r.Name, seg), "input": input,
		"server": r.URL, "remoteToolName": t.Name, "bridge": r.Name, "scope": p.scope}
	if r.Auth != "" {
		op["auth"] = r.Auth
		if p.scope == ScopeVenue {
			op["addedBy"] = r.AddedBy
		}
	}
	if r.VenueSecret != "" && r.AddedBy == "" {
		op["venueSecret"] = r.VenueSecret
	}
	meta, _ := json.Marshal(map[string]any{"name": title, "description": t.Description, "operation": op})
	return meta, warn
}

// remove drops a bridge, its tools and, for scope venue, the venue's copy
// of its secret.
func (b *Bridge) remove(ctx context.Context, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	p, r, err := named(ctx, input, env)
	if err != nil {
		return nil, err
	}
	if _, err := p.drop(r.Name); err != nil {
		return nil, err
	}
	if r.VenueSecret != "" {
		if err := p.e.DeleteSecret(p.ctx, r.VenueSecret); err != nil && venue.ErrorCode(err) != venue.ENOTFOUND {
			return nil, err
		}
	}
	return json.Marshal(map[string]any{"name": r.Name, "scope": p.scope, "removed": true})
}
