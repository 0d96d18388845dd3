package runtime

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"slices"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// AccessPolicy says what callers may do beyond their own namespace.
type AccessPolicy struct {
	// Anonymous lists the abilities the shared anonymous identity holds in
	// its own (shared) namespace, e.g. crud/read and invoke; "*" is all of
	// them. Nil or empty means none: anonymous callers may do nothing that
	// is checked.
	Anonymous []string
	// Admins are DIDs holding every venue-wide ability (mcp/manage, ...).
	Admins []string
}

// Authorize reports whether the caller in ctx holds ability can (for
// example "crud/read", "agent/create", "mcp/manage") on resource with (a
// lattice path qualified by its owner's DID, such as
// "did:key:z6Mk.../w/notes", or the venue's DID for venue-wide abilities).
// It returns nil when the caller may, and an EFORBIDDEN *venue.Error naming
// the missing capability when it may not (EUNAUTHORIZED when the caller is
// anonymous, since a token is what it lacks).
//
// Every door and executor asks here, so that the rule lives in one place.
// The caller's own namespace is always allowed (for the anonymous identity,
// as far as the venue's policy says); grants from UCAN proofs carried in ctx
// extend it; a Bound caller (an agent on delegated authority) is confined
// to its bound whatever it owns.
func (e *Engine) Authorize(ctx context.Context, with, can string) error {
	c, err := e.caller(ctx)
	if err != nil {
		return err
	}
	if e.allowed(c, with, can) {
		return nil
	}
	if c.Anonymous {
		return venue.Errorf(venue.EUNAUTHORIZED, "Capability denied: anonymous callers may not %s on %s here: send Authorization: Bearer <token> (venued token mints one)", can, with)
	}
	if until, ok := c.GrantedUntil(with, can); ok && !until.IsZero() {
		// A UCAN a few seconds past its exp still passes the verifier (the
		// clock skew it forgives), but grants nothing past that exp.
		return venue.Errorf(venue.EFORBIDDEN, "Capability denied: the grant of %s on %s to %s expired at %s: present a current UCAN",
			can, with, c.DID, until.UTC().Format(time.RFC3339))
	}
	return venue.Errorf(venue.EFORBIDDEN, "Capability denied: %s holds no %s on %s: present a UCAN granting it", c.DID, can, with)
}

func (e *Engine) allowed(c venue.Caller, with, can string) bool {
	if b := c.Bound(); b != nil && !venue.Holds(b, with, can) {
		return false
	}
	owner := venue.Owner(with)
	switch {
	case owner == c.DID && c.Anonymous:
		return slices.Contains(e.cfg.Access.Anonymous, "*") || slices.ContainsFunc(e.cfg.Access.Anonymous, func(a string) bool {
			return venue.Capability{With: with, Can: a}.Covers(with, can)
		})
	case owner == c.DID:
		return true
	case owner == e.id.DID && slices.Contains(e.cfg.Access.Admins, c.DID):
		return true
	}
	// A grant lasts as long as the UCAN that proved it, also for a job
	// that began under it and is still running, or resumed, after that.
	until, ok := c.GrantedUntil(with, can)
	return ok && (until.IsZero() || e.now().Before(until))
}

// authorizeOwn is Authorize on the caller's own namespace ns (and below it,
// rest, which may be empty).
func (e *Engine) authorizeOwn(ctx context.Context, c venue.Caller, can, ns string) error {
	if !c.Anonymous && c.Authority == nil {
		return nil // the common case: a user in its own namespace
	}
	with := c.DID + "/" + ns
	if e.allowed(c, with, can) {
		return nil
	}
	return e.Authorize(venue.WithCaller(ctx, c), with, can) // words the refusal
}

// WithProofs returns ctx whose caller also holds the grants the UCANs
// tokens prove to it. Each token's audience must be the caller.
// Returns EINVALID for a token that is not a UCAN and EFORBIDDEN for one
// that fails verification, naming which token and why.
func (e *Engine) WithProofs(ctx context.Context, tokens []string) (context.Context, error) {
	if len(tokens) == 0 {
		return ctx, nil
	}
	c, err := e.caller(ctx)
	if err != nil {
		return ctx, err
	}
	proved, err := e.prove(c.DID, tokens)
	if err != nil {
		return ctx, err
	}
	for _, tok := range proved {
		// A token expires no later than its proofs (the verifier refuses
		// one that outlives them), so its exp is its chain's earliest.
		c = c.WithGrantsUntil(tok.Expires, tok.Grants...)
	}
	return venue.WithCaller(ctx, c), nil
}

// prove verifies tokens presented by did.
func (e *Engine) prove(did string, tokens []string) ([]*ucan.Token, error) {
	if len(tokens) > ucan.MaxProofs {
		return nil, venue.Errorf(venue.EINVALID, "%d UCANs sent; the limit is %d", len(tokens), ucan.MaxProofs)
	}
	v := e.Verifier()
	proved := make([]*ucan.Token, 0, len(tokens))
	for i, t := range tokens {
		tok, err := v.Verify(t, did)
		if err != nil {
			return nil, venue.Errorf(venue.ErrorCode(err), "ucans[%d]: %s", i, venue.ErrorMessage(err))
		}
		proved = append(proved, tok)
	}
	return proved, nil
}

// Verifier returns a UCAN verifier that knows the venue's own key, so
// venue-issued grants (of venue-wide abilities, and on its users'
// namespaces: IssueUCAN) verify too, and refuses revoked tokens
// (RevokeUCAN).
func (e *Engine) Verifier() *ucan.Verifier {
	return &ucan.Verifier{Now: e.now, Venue: e.id.DID, Public: e.publicDID, MaxLifetime: MaxDelegation, Revoked: e.CheckRevoked, Key: func(did string) (ed25519.PublicKey, error) {
		if did == e.id.DID {
			return e.id.Key.Public().(ed25519.PublicKey), nil
		}
		return nil, venue.Errorf(venue.EFORBIDDEN, "issuer %s is not a did:key", did)
	}}
}

// UseTokenOnce records that the one-time token named by key (its issuer
// and id, say) was used, until keep, in the store every node shares.
// Returns EUNAUTHORIZED if it was used before and EUNAVAILABLE if the
// store cannot say.
func (e *Engine) UseTokenOnce(ctx context.Context, key string, keep time.Time) error {
	h := sha256.Sum256([]byte(key))
	fresh, err := e.store.UseTokenID(ctx, h[:], keep.UnixMilli(), e.ms())
	if err != nil {
		e.log.Error("record one-time token", "err", err)
		return venue.Errorf(venue.EUNAVAILABLE, "The one-time token could not be checked against replay; try again")
	}
	if !fresh {
		return venue.Errorf(venue.EUNAUTHORIZED, "Invalid token: replayed: its jti was already used; mint a new token for each request, or leave out jti")
	}
	return nil
}

// RecordUser notes that did has signed in, so that its DID document
// (/u/{id}/did.json) resolves before it first acts.
func (e *Engine) RecordUser(ctx context.Context, did string) error {
	if err := e.store.TouchUser(ctx, did, e.ms()); err != nil {
		return err
	}
	e.users.store(did, true)
	return nil
}
