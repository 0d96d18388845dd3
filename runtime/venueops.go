package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// Venue-wide operations that are not in the static catalog: the tools of
// MCP servers bridged with scope "venue". An executor holding mcp/manage
// keeps them in the venue's own namespace at o/mcp/<name>/<tool>, and every
// caller invokes them as v/ops/mcp/<name>/<tool>. (A user's own bridged
// tools are pins at o/mcp/... of the user's namespace and resolve like any
// pin.)

// venueOp resolves v/ops/mcp/<name>/<tool> to the operation the venue keeps
// at o/mcp/<name>/<tool>, nil if there is none.
func (e *Engine) venueOp(ctx context.Context, p venue.Path) (*venue.Operation, error) {
	if len(p.Segments) < 5 || p.Segments[1] != "ops" || p.Segments[2] != "mcp" {
		return nil, nil
	}
	pin := venue.Path{Segments: append([]string{venue.NSPins}, p.Segments[2:]...)}
	v, ok, err := e.readValue(ctx, e.id.DID, pin, e.readCap())
	if err != nil || !ok || len(v) == 0 || v[0] != '{' {
		return nil, err
	}
	return venue.ParseOperation(p.String(), v)
}

// AsVenue returns ctx acting as the venue itself, for an executor that
// keeps venue-wide state (venue-scope MCP bridges) in the venue's own
// namespace. The executor must first check that the job's caller may do
// so (Authorize with the venue's DID).
func (env *Env) AsVenue(ctx context.Context) context.Context {
	return venue.WithCaller(ctx, venue.Caller{DID: env.e.id.DID})
}

// DelegatedSecret resolves owner's secret for venue code that acts on a
// standing delegation of owner's (a venue-scope MCP bridge owner added
// with it), registering it with the job's masker as Secret does. It is
// resolved at each use, so that deleting or replacing the secret ends or
// changes what the delegation sends. Only the venue's own executors reach
// it, and only for a delegation the venue recorded.
// Returns ENOTFOUND if owner has no such secret.
func (env *Env) DelegatedSecret(ctx context.Context, owner, name string) (string, error) {
	v, err := env.e.openSecret(ctx, owner, name)
	if err != nil {
		return "", err
	}
	env.j.mask.add(v)
	return v, nil
}

// VenueSecret resolves a secret the venue itself holds (stored through
// AsVenue), registering it with the job's masker as Secret does.
// Returns ENOTFOUND if the venue has no such secret.
func (env *Env) VenueSecret(ctx context.Context, name string) (string, error) {
	v, err := env.e.openSecret(ctx, env.e.id.DID, name)
	if err != nil {
		return "", err
	}
	env.j.mask.add(v)
	return v, nil
}
