package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// leeway is the clock skew forgiven between the venue and token issuers.
const leeway = 30 * time.Second

// verify checks a bearer token and returns the caller it names. The token
// is routed by its unverified header and claims, then checked in full by
// the one verifier its kind allows; nothing in it is trusted before that.
func (a *Auth) verify(ctx context.Context, tok string) (venue.Caller, error) {
	now := a.now()
	if c, ok := a.verified.get(tok, now); ok {
		if err := a.unrevoked(tok, c.chain); err != nil {
			return venue.Caller{}, err
		}
		return c.caller, nil
	}
	v, err := a.check(ctx, tok)
	if err != nil {
		return venue.Caller{}, err
	}
	if !v.once {
		a.verified.put(tok, v, now)
	}
	return v.caller, nil
}

// unrevoked checks again that no token of a cached UCAN's chain has been
// revoked since it verified, and forgets one that has.
func (a *Auth) unrevoked(tok string, chain []string) error {
	if len(chain) == 0 {
		return nil
	}
	err := a.e.CheckRevoked(chain)
	switch venue.ErrorCode(err) {
	case "", venue.EUNAVAILABLE:
		return err
	}
	a.verified.drop(tok)
	return invalid("%s", venue.ErrorMessage(err))
}

// verdict is what a full check of a token established.
type verdict struct {
	caller  venue.Caller
	expires time.Time
	once    bool     // a one-time token: never cached
	chain   []string // a UCAN's chain (ucan.Token.Chain)
}

func (a *Auth) check(ctx context.Context, tok string) (verdict, error) {
	if len(tok) > ucan.MaxTokenBytes {
		return verdict{}, invalid("token is %d bytes; the limit is %d", len(tok), ucan.MaxTokenBytes)
	}
	claims := jwt.MapClaims{}
	t, _, err := jwt.NewParser().ParseUnverified(tok, claims)
	if err != nil {
		return verdict{}, invalid("not a JWT: %s", reason(err))
	}
	iss, _ := claims["iss"].(string)
	_, isUCAN := claims["att"]
	switch alg := t.Method.Alg(); {
	case isUCAN:
		jti, _ := claims["jti"].(string)
		return a.ucanCaller(ctx, tok, jti)
	case alg == "EdDSA" && strings.HasPrefix(iss, "did:key:"):
		return a.selfIssued(ctx, tok)
	case alg == "EdDSA" && iss == a.id.DID:
		return a.venueIssued(tok)
	case alg == "RS256":
		return a.providerIssued(ctx, tok, iss)
	default:
		return verdict{}, invalid("a token with alg %q from issuer %q is not one this venue accepts: use an EdDSA token self-issued by a did:key, a token from /login, or an RS256 token from a configured OAuth provider", clip(alg), clip(iss))
	}
}

// audiences are the names a token may be addressed to: the venue's DID (as
// the status endpoint reports it) or its base URL.
func (a *Auth) audiences() []string { return []string{a.id.DID, a.id.BaseURL} }

func (a *Auth) parser(methods ...string) *jwt.Parser {
	return jwt.NewParser(jwt.WithValidMethods(methods), jwt.WithExpirationRequired(), jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway), jwt.WithAudience(a.audiences()...), jwt.WithTimeFunc(a.now))
}

// selfIssued checks a token signed by the key its did:key issuer names.
func (a *Auth) selfIssued(ctx context.Context, tok string) (verdict, error) {
	c := &jwt.RegisteredClaims{}
	_, err := a.parser("EdDSA").ParseWithClaims(tok, c, func(t *jwt.Token) (any, error) {
		if kid, ok := t.Header["kid"].(string); ok && kid != "" && "did:key:"+kid != c.Issuer && kid != c.Issuer {
			return nil, errors.New("kid names a different key than iss")
		}
		return venue.ParseDIDKey(c.Issuer)
	})
	if err != nil {
		return verdict{}, a.refused(err, a.venueAudience())
	}
	if c.Subject != "" && c.Subject != c.Issuer {
		return verdict{}, invalid("a self-issued token's sub must be its issuer %s", clip(c.Issuer))
	}
	if err := a.checkLifetime(c.IssuedAt, c.ExpiresAt.Time); err != nil {
		return verdict{}, err
	}
	if c.ID != "" {
		if err := a.e.UseTokenOnce(ctx, c.Issuer+"\x00"+c.ID, c.ExpiresAt.Add(leeway)); err != nil {
			return verdict{}, err
		}
	}
	return verdict{caller: venue.Caller{DID: c.Issuer}, expires: c.ExpiresAt.Time, once: c.ID != ""}, nil
}

// checkLifetime refuses a token its caller issued for longer than the
// venue allows: a token without jti can be replayed until it expires, so
// its lifetime is the window a captured copy is good for. The lifetime is
// exp − iat, or exp − now without iat (iat is never after now).
func (a *Auth) checkLifetime(iat *jwt.NumericDate, exp time.Time) error {
	from, what := a.now(), "exp − now"
	if iat != nil {
		from, what = iat.Time, "exp − iat"
	}
	if life := exp.Sub(from); life > a.opts.MaxTokenTTL+leeway {
		return invalid("it is valid for %s (%s); this venue accepts tokens a caller issues itself valid for at most %s: mint a shorter-lived one",
			life.Round(time.Second), what, a.opts.MaxTokenTTL)
	}
	return nil
}

// venueIssued checks a token the venue signed at login.
func (a *Auth) venueIssued(tok string) (verdict, error) {
	c := &jwt.RegisteredClaims{}
	_, err := a.parser("EdDSA").ParseWithClaims(tok, c, func(*jwt.Token) (any, error) { return a.venueKey(), nil })
	if err != nil {
		return verdict{}, a.refused(err, a.venueAudience())
	}
	if user, ok := strings.CutPrefix(c.Subject, a.id.DID+":u:"); !ok || user == "" {
		return verdict{}, invalid("a venue token's sub must be one of its users")
	}
	return verdict{caller: venue.Caller{DID: c.Subject}, expires: c.ExpiresAt.Time}, nil
}

// ucanCaller checks a UCAN sent as the bearer token: addressed to the
// venue, its issuer is the caller and its grants are the caller's. Like a
// self-issued token it authenticates its issuer, so it gets the same
// lifetime cap, and with a jti (read from the token once it has verified)
// it is one-time.
func (a *Auth) ucanCaller(ctx context.Context, tok, jti string) (verdict, error) {
	u, err := a.ucans.Verify(tok, a.id.DID)
	if venue.ErrorCode(err) == venue.EUNAVAILABLE {
		return verdict{}, err // the revocations could not be read: no verdict on the token
	}
	if err != nil {
		return verdict{}, invalid("%s", venue.ErrorMessage(err))
	}
	if !strings.HasPrefix(u.Issuer, "did:key:") {
		return verdict{}, invalid("a UCAN bearer token must be issued by a did:key")
	}
	if err := a.checkLifetime(nil, u.Expires); err != nil {
		return verdict{}, err
	}
	if jti != "" {
		if err := a.e.UseTokenOnce(ctx, u.Issuer+"\x00"+jti, u.Expires.Add(leeway)); err != nil {
			return verdict{}, err
		}
	}
	return verdict{caller: ucanBearer(u, tok), expires: u.Expires, once: jti != "", chain: u.Chain}, nil
}

// ucanBearer is the caller a UCAN sent as the bearer makes: its issuer,
// holding its grants and confined to them, and to invoking and reading
// jobs, so that the grants can be used through operations and the jobs
// followed. A UCAN is a delegation of what it names: one granting read of
// w/notes, handed to someone as a share, gave its holder the issuer's
// whole account when the issuer's own namespace was open to it whatever
// att said. A token for the whole account names it: {"with": "<did>",
// "can": "*"}. The caller acts under the token as a share (its hash), so
// that its holder follows only the jobs begun with that token: the
// issuer's other job records hold the outputs of every read it made.
func ucanBearer(u *ucan.Token, tok string) venue.Caller {
	jobs := u.Issuer + "/" + venue.NSJobs
	bound := append(slices.Clone(u.Grants), venue.Capability{With: jobs, Can: venue.AbilityInvoke}, venue.Capability{With: jobs, Can: venue.AbilityRead})
	sum := sha256.Sum256([]byte(tok))
	return venue.Caller{DID: u.Issuer}.WithGrantsUntil(u.Expires, u.Grants...).Bounded(bound).Shared(hex.EncodeToString(sum[:]))
}

// providerIssued checks an RS256 token against the JWKS of the configured
// provider whose issuer it names.
func (a *Auth) providerIssued(ctx context.Context, tok, iss string) (verdict, error) {
	p := a.providerByIssuer(iss)
	if p == nil {
		return verdict{}, invalid("RS256 token from %q: no configured OAuth provider has that issuer", clip(iss))
	}
	sub, exp, err := p.verifyIDToken(ctx, tok, a.now)
	if err != nil {
		return verdict{}, a.refused(err, p.audience())
	}
	user, err := a.userIDOf(p, sub)
	if err != nil {
		return verdict{}, err
	}
	return verdict{caller: venue.Caller{DID: a.id.UserDID(user)}, expires: exp}, nil
}

// userIDOf is p's user sub as a venue user id, refused (401) when it falls
// among another provider's: ids are <provider>-<subject>, so with providers
// corp and corp-dev, corp's subject dev-x and corp-dev's subject x would be
// one user. The longer name keeps its ids, and the shorter one's subject is
// refused, rather than the configuration, which worked before the check
// (github, github-enterprise): a provider's subjects (GitHub's are numbers)
// rarely take that form.
func (a *Auth) userIDOf(p *provider, sub string) (string, error) {
	id := p.userID(sub)
	for name := range a.providers {
		if len(name) > len(p.Name) && strings.HasPrefix(id, name+"-") {
			return "", invalid("the subject %q of OAuth provider %s would be the same venue user as a user of provider %s: the venue refuses it; "+
				"its operator can rename one provider", clip(sub), p.Name, name)
		}
	}
	return id, nil
}

func (a *Auth) providerByIssuer(iss string) *provider {
	for _, p := range a.providers {
		if p.Issuer == iss || strings.TrimRight(p.Issuer, "/") == strings.TrimRight(iss, "/") {
			return p
		}
	}
	return nil
}

// venueAudience says which aud a self-issued or venue-signed token needs.
func (a *Auth) venueAudience() string {
	return fmt.Sprintf("a self-issued or venue token must have aud set to this venue's DID %s (as /api/v1/status reports it) or its URL %s",
		a.id.DID, a.id.BaseURL)
}

// refused words a failed check of a token; wantAud says which audience a
// token of its kind needs, since that differs by kind.
func (a *Auth) refused(err error, wantAud string) error {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return invalid("token has expired: get a fresh one")
	case errors.Is(err, jwt.ErrTokenInvalidAudience), errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && strings.Contains(err.Error(), "aud"):
		return invalid("token is addressed to another audience: %s", wantAud)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return invalid("token has no exp: tokens must expire")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalid("signature does not verify")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return invalid("token is not valid yet: check the clock that issued it")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return invalid("token names another issuer")
	}
	return invalid("%s", reason(err))
}

func invalid(format string, args ...any) error {
	return venue.Errorf(venue.EUNAUTHORIZED, "Invalid token: "+format, args...)
}

func reason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return clip(msg)
}

var (
	plainID    = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,48}$`)
	hashShaped = regexp.MustCompile(`^[0-9a-f]{24}$`)
)

// userID names a provider's user as a venue user id: the provider's name
// and the subject, or a hash of the subject when it has characters a DID
// path cannot hold. A subject shaped like such a hash (24 hex digits) is
// hashed too: otherwise a user who could choose it at the provider would be
// the user whose subject hashes to it. Provider names never run into each
// other (Auth.prefixFree), so no two (provider, subject) pairs meet.
func (p *provider) userID(sub string) string {
	if plainID.MatchString(sub) && !hashShaped.MatchString(sub) {
		return p.Name + "-" + sub
	}
	h := sha256.Sum256([]byte(p.Issuer + "\x00" + sub))
	return p.Name + "-" + hex.EncodeToString(h[:12])
}
