package runtime

import (
	"context"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// MaxDelegation is the longest a UCAN the venue signs (or takes) may
// last: it should not outlive the reason it was made, and its revocation,
// if any, is kept until it ends.
const MaxDelegation = 366 * 24 * time.Hour

// IssueUCAN signs, as the venue and on behalf of the caller, a UCAN
// granting aud the capabilities att until exp. It is how a caller without a
// key of its own delegates: a user signed in through OAuth
// (did:web:<venue>:u:...) its own namespace, and an admin the venue-wide
// abilities it holds (mcp/manage, say). The venue signs only what the
// caller holds, and only where its signature roots a chain (see
// ucan.Verifier.Venue): a did:key signs its own delegations. A resource
// without a DID ("w/notes") is the caller's own.
// Returns EUNAUTHORIZED for the anonymous caller, EINVALID for a malformed
// request, and EFORBIDDEN for a grant the caller does not hold or the
// venue cannot vouch for.
func (e *Engine) IssueUCAN(ctx context.Context, aud string, att []venue.Capability, exp time.Time) (string, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return "", err
	}
	if c.Anonymous {
		return "", venue.Errorf(venue.EUNAUTHORIZED, "The anonymous caller delegates nothing: send Authorization: Bearer <token> to issue UCANs")
	}
	if err := e.checkDelegation(aud, att, exp); err != nil {
		return "", err
	}
	grants := make([]venue.Capability, len(att))
	for i, g := range att {
		if grants[i], err = e.vouch(ctx, c, g, exp); err != nil {
			return "", err
		}
	}
	return ucan.Issue(e.id.Key, e.id.DID, aud, grants, nil, exp)
}

// checkDelegation checks the form of a delegation the venue is asked to sign.
func (e *Engine) checkDelegation(aud string, att []venue.Capability, exp time.Time) error {
	now := e.now()
	switch {
	case !strings.HasPrefix(aud, "did:") || len(aud) > 512:
		return venue.Errorf(venue.EINVALID, "aud must be the DID the UCAN is issued to, such as did:key:z6Mk...")
	case len(att) == 0 || len(att) > ucan.MaxGrants:
		return venue.Errorf(venue.EINVALID, "att must list from 1 to %d grants {with, can}", ucan.MaxGrants)
	case !exp.After(now):
		return venue.Errorf(venue.EINVALID, "exp must be in the future (seconds since the epoch)")
	case exp.Sub(now) > MaxDelegation:
		return venue.Errorf(venue.EINVALID, "exp may be at most %d days ahead: a grant should not outlive its reason (revoke one sooner with v/ops/ucan/revoke)", int(MaxDelegation.Hours()/24))
	}
	return nil
}

// vouch returns g, qualified by the caller's DID if it names none, if the
// venue may sign it for caller c until exp: on the namespace of c, a user
// of this venue, or on the venue's own resources, and held by c until then.
func (e *Engine) vouch(ctx context.Context, c venue.Caller, g venue.Capability, exp time.Time) (venue.Capability, error) {
	if g.Can == "" || g.With == "" || len(g.With) > 1024 || len(g.Can) > 128 {
		return g, venue.Errorf(venue.EINVALID, "each grant must name a resource 'with' and an ability 'can'")
	}
	if !strings.HasPrefix(g.With, "did:") {
		g.With = c.DID + "/" + strings.TrimPrefix(g.With, "/")
	}
	owner := venue.Owner(g.With)
	ownUser := owner == c.DID && strings.HasPrefix(c.DID, e.id.DID+":u:")
	if !ownUser && owner != e.id.DID {
		return g, venue.Errorf(venue.EFORBIDDEN, "The venue signs delegations only of your own namespace as one of its users, or of venue-wide abilities you hold as an admin; "+
			"not {with: %s, can: %s}: a did:key signs its own UCANs, and a grant received is passed on with its proof", g.With, g.Can)
	}
	if err := e.Authorize(venue.WithCaller(ctx, c), g.With, g.Can); err != nil {
		return g, err
	}
	// A grant held through a UCAN is passed on no longer than it lasts:
	// the venue's signature roots the new chain, so nothing else would
	// end it, and a two-minute grant would become a year's.
	if !e.allowed(c.WithoutGrants(), g.With, g.Can) {
		if until, ok := c.GrantedUntil(g.With, g.Can); ok && !until.IsZero() && exp.After(until) {
			return g, venue.Errorf(venue.EFORBIDDEN, "exp must not be later than the grant of %s on %s you hold, which expires at %s (%d)",
				g.Can, g.With, until.UTC().Format(time.RFC3339), until.Unix())
		}
	}
	return g, nil
}
