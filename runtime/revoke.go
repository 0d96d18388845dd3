package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// Revocation is what RevokeUCAN answers.
type Revocation struct {
	// ID names the token: the SHA-256 of its text, in hex, as the share
	// field of the jobs begun with it does.
	ID string `json:"id"`
	// Expires is when the token would have ended, and its revocation is
	// forgotten, in ms since the epoch.
	Expires int64 `json:"expires"`
}

// RevokeUCAN ends token before its exp: from now on this venue (every node
// sharing its store) refuses it, and every chain that rests on it, as a
// bearer token and as a proof. Only the token's issuer revokes it, or, for
// a token the venue signed for its user (IssueUCAN), the user owning
// everything it grants; a caller confined to a bound (a UCAN sent as the
// bearer, an agent on its caps) only if the bound grants ucan/revoke on
// its DID. Revoking a revoked token again is no error, and a token not
// valid yet (nbf) is revoked before it is.
// Returns EINVALID for what is no live UCAN, EFORBIDDEN for a caller that
// may not revoke it, and EUNAVAILABLE if the store cannot record it.
func (e *Engine) RevokeUCAN(ctx context.Context, token string) (*Revocation, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	v := e.Verifier()
	v.Revoked = nil // a revoked token may be revoked again
	if nbf := notBefore(token); nbf.After(e.now()) {
		// Not valid yet, and revoked before it is: checked as it will be
		// once valid, or its issuer could only wait for it to start.
		v.Now = func() time.Time { return nbf }
	}
	tok, err := v.Verify(token, "")
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Cannot revoke this token: %s", venue.ErrorMessage(err))
	}
	if !e.mayRevoke(c, tok) {
		return nil, venue.Errorf(venue.EFORBIDDEN, "Only a UCAN's issuer may revoke it: this one was issued by %s", tok.Issuer)
	}
	if b := c.Bound(); b != nil && !venue.Holds(b, c.DID, venue.AbilityRevoke) {
		return nil, venue.Errorf(venue.EFORBIDDEN, "Capability denied: the UCAN or agent caps you act under hold no %s on %s: revoke as %s itself",
			venue.AbilityRevoke, c.DID, c.DID)
	}
	// Kept as long as the verifier takes the token: it forgives a token
	// the clock skew past its exp, which a revocation kept until exp
	// would let through again.
	keep := tok.Expires.Add(ucan.DefaultLeeway)
	if _, err := e.store.UseTokenID(ctx, revokedKey(token), keep.UnixMilli(), e.ms()); err != nil {
		e.log.Error("record a revoked UCAN", "err", err)
		return nil, venue.Errorf(venue.EUNAVAILABLE, "The revocation could not be recorded; try again")
	}
	sum := sha256.Sum256([]byte(token))
	return &Revocation{ID: hex.EncodeToString(sum[:]), Expires: tok.Expires.UnixMilli()}, nil
}

// notBefore is the nbf of token, read without verifying it; zero if it has
// none or is no JWT (Verify then says what is wrong with it).
func notBefore(token string) time.Time {
	c := &ucan.Claims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, c); err != nil || c.NotBefore == nil {
		return time.Time{}
	}
	return c.NotBefore.Time
}

// mayRevoke reports whether c may revoke tok: it issued it, or the venue
// issued it on c's behalf, granting only what c owns.
func (e *Engine) mayRevoke(c venue.Caller, tok *ucan.Token) bool {
	if c.Anonymous {
		return false
	}
	if tok.Issuer == c.DID {
		return true
	}
	if tok.Issuer != e.id.DID {
		return false
	}
	for _, g := range tok.Grants {
		if venue.Owner(g.With) != c.DID {
			return false
		}
	}
	return len(tok.Grants) > 0
}

// revokedKey is the token store's key of a revoked UCAN, apart from those
// of one-time tokens (UseTokenOnce) by its prefix.
func revokedKey(token string) []byte {
	sum := sha256.Sum256([]byte("revoked UCAN\x00" + token))
	return sum[:]
}

// CheckRevoked refuses a UCAN chain (ucan.Token.Chain) of which a token is
// revoked. It asks the store every time, so a revocation holds on every
// node at once; the verifier has no context of its own, so the lookup gets
// a short one.
// Returns EFORBIDDEN for a revoked chain, EUNAVAILABLE if the store cannot
// say.
func (e *Engine) CheckRevoked(tokens []string) error {
	keys := make([][]byte, len(tokens))
	for i, t := range tokens {
		keys[i] = revokedKey(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	revoked, err := e.store.TokenIDsLive(ctx, keys, e.ms())
	switch {
	case err != nil:
		e.log.Error("look up revoked UCANs", "err", err)
		return venue.Errorf(venue.EUNAVAILABLE, "The UCAN could not be checked against revocations; try again")
	case revoked:
		return venue.Errorf(venue.EFORBIDDEN, "UCAN refused: it, or a token it rests on, was revoked by its issuer")
	}
	return nil
}
