package ucan

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// Verifier checks UCAN chains. The zero value verifies did:key issuers at
// the current time.
type Verifier struct {
	Now func() time.Time // nil means time.Now
	// Key returns the Ed25519 key of a DID that is not a did:key (the
	// venue's own did:web, which may be the root of venue-wide grants).
	// Nil, or an error, means only did:key issuers are known.
	Key func(did string) (ed25519.PublicKey, error)
	// Leeway is the clock skew forgiven on exp and nbf; default
	// DefaultLeeway.
	Leeway time.Duration
	// Venue is the verifying venue's own DID. Besides its own resources,
	// a token it signed may root grants on those of its users (DIDs under
	// Venue+":u:"), who hold no key of their own: the venue signs for them
	// (v/ops/ucan/issue) only what they hold. Empty: no DID is rooted by
	// anyone but itself.
	Venue string
	// Public is the venue's anonymous identity, a DID under Venue+":u:"
	// that is nobody's: the venue's signature roots no grant on it.
	Public string
	// MaxLifetime refuses a token (any link of a chain) that ends further
	// than this from now: a grant lasts as long as its token says unless
	// its issuer revokes it. Zero means no bound.
	MaxLifetime time.Duration
	// Revoked is asked, once a chain has verified, about every token in
	// it (the token first): an error refuses the chain. Nil: no token is
	// revoked.
	Revoked func(tokens []string) error
}

// DefaultLeeway is the clock skew a Verifier forgives unless told
// otherwise: a token verifies until this long after its exp.
const DefaultLeeway = 30 * time.Second

// Token is a verified UCAN.
type Token struct {
	Issuer, Audience string
	Grants           []venue.Capability // every grant proven
	Expires          time.Time
	Depth            int    // proof links below the token on its longest chain
	Root             string // the issuer at the end of its first chain (its own issuer without proofs)
	// Chain holds every token of its chain, itself first: what a revocation
	// of any of them ends (Verifier.Revoked).
	Chain []string
}

// Verify checks token as presented to audience: its signature, time window,
// audience and every link of its proof chain. Returns EINVALID for a token
// that is not a UCAN at all and EFORBIDDEN for one that fails a check, each
// saying which.
func (v *Verifier) Verify(token, audience string) (*Token, error) {
	budget := MaxTokens
	var chain []string
	c, err := v.verify(token, audience, 0, &budget, &chain)
	if err != nil {
		return nil, err
	}
	if v.Revoked != nil {
		if err := v.Revoked(chain); err != nil {
			return nil, err
		}
	}
	return &Token{Issuer: c.Issuer, Audience: c.Audience, Grants: c.Att, Expires: c.Expires.Time, Depth: c.depth, Root: c.root, Chain: chain}, nil
}

// link is a verified token in a chain, with what its proofs add up to.
type link struct {
	*Claims
	depth int    // proof links below it on its longest chain
	root  string // the issuer at the end of its first chain
}

func (v *Verifier) verify(token, audience string, depth int, budget *int, chain *[]string) (*link, error) {
	switch {
	case depth > MaxDepth:
		return nil, refuse("delegation chain is longer than %d links", MaxDepth)
	case *budget <= 0:
		return nil, refuse("proof chain holds more than %d tokens", MaxTokens)
	case len(token) > MaxTokenBytes:
		return nil, venue.Errorf(venue.EINVALID, "UCAN is %d bytes; the limit is %d", len(token), MaxTokenBytes)
	}
	*budget--
	*chain = append(*chain, token)
	c, err := v.parse(token)
	if err != nil {
		return nil, err
	}
	if audience != "" && c.Audience != audience {
		if depth == 0 {
			return nil, refuse("its audience is %s, not %s: it was issued to someone else", clip(c.Audience), clip(audience))
		}
		return nil, refuse("broken link: a proof's audience is %s, but the token it proves was issued by %s", clip(c.Audience), clip(audience))
	}
	l, proofs, err := v.proofs(c, depth, budget, chain)
	if err != nil {
		return nil, err
	}
	for _, g := range c.Att {
		if !v.proven(g, c.Issuer, proofs) {
			return nil, refuse("widened capability: %s issued {with: %s, can: %s} without owning it or holding a proof that grants it",
				clip(c.Issuer), clip(g.With), clip(g.Can))
		}
	}
	return l, nil
}

// proofs verifies the proofs of c, each issued to c's issuer and lasting
// at least as long as c, and returns c as a link of the chain with them.
func (v *Verifier) proofs(c *Claims, depth int, budget *int, chain *[]string) (*link, []*Claims, error) {
	l := &link{Claims: c, root: c.Issuer}
	proofs := make([]*Claims, 0, len(c.Prf))
	for i, p := range c.Prf {
		pl, err := v.verify(p, c.Issuer, depth+1, budget, chain)
		if err != nil {
			return nil, nil, err
		}
		if pl.Expires.Before(c.Expires.Time) {
			return nil, nil, refuse("it outlives its proof from %s, which expires at %s", clip(pl.Issuer), pl.Expires.UTC().Format(time.RFC3339))
		}
		proofs = append(proofs, pl.Claims)
		l.depth = max(l.depth, pl.depth+1)
		if i == 0 {
			l.root = pl.root
		}
	}
	return l, proofs, nil
}

// proven reports whether issuer may grant g: it owns the resource (the
// venue, for its keyless users too), or a proof grants it at least as
// much.
func (v *Verifier) proven(g venue.Capability, issuer string, proofs []*Claims) bool {
	owner := venue.Owner(g.With)
	if owner == issuer || v.Venue != "" && issuer == v.Venue && strings.HasPrefix(owner, v.Venue+":u:") && owner != v.Public {
		return true
	}
	for _, p := range proofs {
		for _, pg := range p.Att {
			if pg.CoversCapability(g) {
				return true
			}
		}
	}
	return false
}

// parse checks one token's form, signature and time window.
func (v *Verifier) parse(token string) (*Claims, error) {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	leeway := v.Leeway
	if leeway == 0 {
		leeway = DefaultLeeway
	}
	if err := checkPayload(token); err != nil {
		return nil, err
	}
	p := jwt.NewParser(jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithExpirationRequired(),
		jwt.WithLeeway(leeway), jwt.WithTimeFunc(now))
	c := &Claims{}
	t, err := p.ParseWithClaims(token, c, v.keyOf)
	if err != nil {
		if t != nil && t.Header != nil && !errors.Is(err, jwt.ErrTokenMalformed) {
			// alg none or HS256 fails as a signature that does not
			// verify; say what is wrong with it instead.
			if alg, _ := t.Header["alg"].(string); alg != "EdDSA" {
				return nil, venue.Errorf(venue.EINVALID, "UCAN is signed with alg %q: this venue accepts only EdDSA (Ed25519) UCANs", clip(alg))
			}
		}
		return nil, parseError(err)
	}
	if key, err := v.keyOf(t); err == nil && !kidMatches(t, c.Issuer, key.(ed25519.PublicKey)) {
		return nil, refuse("its kid names another key than its issuer's: set kid to the issuer's key, or leave it out")
	}
	if err := checkClaims(c); err != nil {
		return nil, err
	}
	if v.MaxLifetime > 0 && c.Expires != nil && c.Expires.Sub(now()) > v.MaxLifetime+leeway {
		days := int(v.MaxLifetime.Hours() / 24)
		return nil, refuse(fmt.Sprintf("it ends more than %d days from now: this venue takes only UCANs that end within %d days (revoke one sooner with v/ops/ucan/revoke); issue it with an earlier exp", days, days))
	}
	return c, nil
}

func (v *Verifier) keyOf(t *jwt.Token) (any, error) {
	c := t.Claims.(*Claims)
	if strings.HasPrefix(c.Issuer, "did:key:") {
		return venue.ParseDIDKey(c.Issuer)
	}
	if v.Key != nil && c.Issuer != "" {
		return v.Key(c.Issuer)
	}
	return nil, fmt.Errorf("issuer %q is not a did:key this venue can verify", clip(c.Issuer))
}

// kidMatches reports whether the kid of t, if it has one, could name key,
// the issuer's key its signature verified with. A kid naming another key
// (a did:key, a multikey, or another DID's verification method) is a
// token that says two things, and is refused, as a self-issued token whose
// kid is not its iss is at the door; a kid in a form that names no key
// here (a JWK thumbprint, say) is left to the signature, which verified.
func kidMatches(t *jwt.Token, iss string, key ed25519.PublicKey) bool {
	kid, ok := t.Header["kid"].(string)
	if !ok || kid == "" {
		return true
	}
	base, _, _ := strings.Cut(kid, "#")
	if base == iss {
		return true
	}
	if k, err := venue.ParseDIDKey("did:key:" + strings.TrimPrefix(base, "did:key:")); err == nil {
		return k.Equal(key)
	}
	return !strings.HasPrefix(base, "did:")
}

// claimNames are the UCAN claims the venue reads, and grantNames the
// members of a grant.
var (
	claimNames = []string{"iss", "aud", "ucv", "att", "prf", "exp", "nbf", "nnc", "fct"}
	grantNames = []string{"with", "can", "nb"}
)

// checkPayload refuses claims that different readers would read
// differently: a member named twice (encoding/json keeps the last, most
// JWT libraries the first), one whose name differs from a claim only in
// case (encoding/json folds case, so {"aud": A, "AUD": B} would be read as
// issued to B while every other reader sees A), and caveats (nb), which
// narrow a grant in UCAN but which this venue does not enforce, so that
// honouring the grant would widen it.
func checkPayload(token string) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil // the parser words it
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil || !json.Valid(payload) {
		return nil // the parser words it
	}
	if name, dup, _ := jsonscan.Duplicate(payload); dup {
		return venue.Errorf(venue.EINVALID, "UCAN claims name the member %q twice in one object: readers disagree on which counts; issue it with each once", clip(name))
	}
	if got, want := jsonscan.CaseVariant(payload, claimNames); got != "" {
		return venue.Errorf(venue.EINVALID, "UCAN claim %q is not %q: claim names are case-sensitive; issue it with %q", clip(got), want, want)
	}
	var att struct {
		Att []json.RawMessage `json:"att"`
		Exp json.RawMessage   `json:"exp"`
		Nbf json.RawMessage   `json:"nbf"`
	}
	if json.Unmarshal(payload, &att) != nil {
		return nil // the parser words it
	}
	for _, t := range []struct {
		name string
		v    json.RawMessage
	}{{"exp", att.Exp}, {"nbf", att.Nbf}} {
		if len(t.v) > 0 && string(t.v) != "null" && !seconds(t.v) {
			return venue.Errorf(venue.EINVALID, "UCAN %s is %s: write it as whole seconds since 1970, a JSON number such as 1767225600", t.name, clip(string(t.v)))
		}
	}
	for i, g := range att.Att {
		if got, want := jsonscan.CaseVariant(g, grantNames); got != "" {
			return venue.Errorf(venue.EINVALID, "UCAN att[%d] member %q is not %q: names are case-sensitive", i, clip(got), want)
		}
		var nb struct {
			Nb json.RawMessage `json:"nb"`
		}
		if json.Unmarshal(g, &nb) == nil && !noCaveats(nb.Nb) {
			return venue.Errorf(venue.EINVALID, "UCAN att[%d] has caveats (nb), which this venue does not enforce: it would grant more than the caveats allow; issue the grant without nb, narrowed by its with and can", i)
		}
	}
	return nil
}

// seconds reports whether v is a JSON number of whole seconds a time can
// hold: the JWT parser also takes a numeral in quotes, and fractions and
// exponents, and reads 1e300 as an instant long past, which a venue would
// then refuse as expired.
func seconds(v json.RawMessage) bool {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil && n >= 0 && n <= maxSeconds
}

// maxSeconds is the last second of the year 9999, past which times do not
// format.
const maxSeconds = 253402300799

// noCaveats reports whether nb, a grant's caveats, restricts nothing:
// absent, null, {}, [] or [{}] (UCAN 0.10 writes "no caveats" as [{}]).
func noCaveats(nb json.RawMessage) bool {
	var v any
	if len(nb) == 0 || json.Unmarshal(nb, &v) != nil {
		return len(nb) == 0
	}
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case []any:
		for _, e := range v {
			if m, ok := e.(map[string]any); !ok || len(m) != 0 {
				return false
			}
		}
		return true
	}
	return false
}

func checkClaims(c *Claims) error {
	switch {
	case c.Audience == "":
		return venue.Errorf(venue.EINVALID, "UCAN has no aud: name the DID it is issued to")
	case len(c.Att) == 0:
		return venue.Errorf(venue.EINVALID, "UCAN grants nothing: att must list at least one {with, can}")
	case len(c.Att) > MaxGrants:
		return venue.Errorf(venue.EINVALID, "UCAN lists %d grants; the limit is %d", len(c.Att), MaxGrants)
	case len(c.Prf) > MaxProofs:
		return venue.Errorf(venue.EINVALID, "UCAN lists %d proofs; the limit is %d", len(c.Prf), MaxProofs)
	}
	for _, g := range c.Att {
		if !strings.HasPrefix(g.With, "did:") || g.Can == "" {
			return venue.Errorf(venue.EINVALID, "UCAN grant {with: %s, can: %s} must name a DID-qualified resource and an ability", clip(g.With), clip(g.Can))
		}
	}
	return nil
}

// parseError words a jwt failure: malformed tokens are EINVALID, tokens
// that fail a check are EFORBIDDEN.
func parseError(err error) error {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed), errors.Is(err, jwt.ErrTokenUnverifiable) && !errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return venue.Errorf(venue.EINVALID, "UCAN is not a well-formed EdDSA JWT: %s", reason(err))
	case errors.Is(err, jwt.ErrTokenExpired):
		return refuse("it has expired")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return venue.Errorf(venue.EINVALID, "UCAN has no exp: give it an expiry")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return refuse("it is not valid yet (nbf)")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return refuse("its signature does not match its issuer's key")
	}
	return refuse("%s", reason(err))
}

func reason(err error) string {
	var wrongType *json.UnmarshalTypeError
	if errors.As(err, &wrongType) {
		return clip(fmt.Sprintf("the claim %s is a JSON %s, where it must be %s", wrongType.Field, wrongType.Value, jsonKind(wrongType.Type)))
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return clip(msg)
}

// jsonKind names the JSON kind of values that decode into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a number"
}

func refuse(format string, args ...any) error {
	return venue.Errorf(venue.EFORBIDDEN, "UCAN refused: "+format, args...)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
