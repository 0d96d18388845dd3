package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
)

// Options configure the identity door. Zero values mean the documented
// default.
type Options struct {
	Providers    []Provider    // OAuth providers offered by /login
	RequireToken bool          // refuse requests without a token to /api/, /mcp, /a2a and /dlfs with 401
	TokenTTL     time.Duration // lifetime of a venue-signed token issued at login; default 24 h
	MaxTokenTTL  time.Duration // longest lifetime of a token a caller issues itself (exp − iat, or exp − now); default 24 h
	HTTPClient   *http.Client  // for talking to providers; default one with a 10 s timeout
	Logger       *slog.Logger  // nil discards
	// Anonymous names what callers without a token may do (none, read,
	// invoke, write) and AnonymousWhy why, for the line New logs; the
	// engine's AccessPolicy is what enforces it. Empty logs nothing.
	Anonymous, AnonymousWhy string
}

// Auth authenticates requests and serves the login door. It is safe for
// concurrent use.
type Auth struct {
	e         *runtime.Engine
	id        runtime.Identity
	opts      Options
	ucans     *ucan.Verifier
	providers map[string]*provider
	verified  *tokenCache
	now       func() time.Time
	log       *slog.Logger
	ctx       context.Context
	stop      context.CancelFunc
}

// New builds the door for engine e. Providers are contacted lazily, on the
// first login or token that needs them. Close releases them.
// Returns EINVALID if a provider is misconfigured.
func New(e *runtime.Engine, opts Options) (*Auth, error) {
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = 24 * time.Hour
	}
	if opts.MaxTokenTTL <= 0 {
		opts.MaxTokenTTL = 24 * time.Hour
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	a := &Auth{e: e, id: e.Identity(), opts: opts, ucans: e.Verifier(), providers: map[string]*provider{},
		verified: newTokenCache(), now: time.Now, log: opts.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.ctx, a.stop = context.WithCancel(context.Background())
	for _, p := range opts.Providers {
		if err := p.check(); err != nil {
			return nil, err
		}
		if a.providers[p.Name] != nil {
			return nil, venue.Errorf(venue.EINVALID, "OAuth provider %q is configured twice", p.Name)
		}
		a.providers[p.Name] = &provider{Provider: p, client: opts.HTTPClient, bg: a.ctx}
	}
	if opts.Anonymous != "" {
		a.log.Info("anonymous access", "allows", opts.Anonymous, "why", opts.AnonymousWhy)
	}
	return a, nil
}

// Close stops refreshing providers' keys.
func (a *Auth) Close() { a.stop() }

// Authenticate returns the caller of r: whoever its bearer token names,
// with the grants of any UCANs in X-Covia-Ucans; the venue's anonymous
// caller when there is no token. Returns EUNAUTHORIZED for a token that
// fails any check, and for a request without one where tokens are required.
// Documentation and discovery routes need no caller: there a stale token a
// browser still sends is ignored, not refused.
func (a *Auth) Authenticate(r *http.Request) (venue.Caller, error) {
	if !guarded(r.URL.Path) {
		return a.e.PublicCaller(), nil
	}
	tok, err := bearer(r)
	if err != nil {
		return venue.Caller{}, err
	}
	var c venue.Caller
	switch {
	case tok != "":
		if c, err = a.verify(r.Context(), tok); err != nil {
			return venue.Caller{}, err
		}
	case a.opts.RequireToken && guarded(r.URL.Path):
		return venue.Caller{}, venue.Errorf(venue.EUNAUTHORIZED, "Authentication required: send Authorization: Bearer <token> (venued token mints one; /login lists sign-in providers)")
	default:
		c = a.e.PublicCaller()
	}
	return a.withHeaderUCANs(r, c)
}

// Middleware puts the request's caller into its context for a handler that
// is not part of the REST door (the MCP endpoint, say), answering a refused
// request with 401 and {"error": "..."} (400 or 403 for X-Covia-Ucans that
// are malformed or prove nothing).
func (a *Auth) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := a.Authenticate(r)
		if err != nil {
			status := http.StatusUnauthorized
			switch venue.ErrorCode(err) {
			case venue.EUNAVAILABLE:
				status = http.StatusServiceUnavailable
			case venue.EINVALID: // a malformed X-Covia-Ucans
				status = http.StatusBadRequest
			case venue.EFORBIDDEN: // X-Covia-Ucans proving nothing
				status = http.StatusForbidden
			default:
				w.Header().Set("WWW-Authenticate", `Bearer realm="venue"`)
			}
			writeError(w, status, venue.ErrorMessage(err))
			return
		}
		next.ServeHTTP(w, r.WithContext(venue.WithCaller(r.Context(), c)))
	})
}

// bearer returns the request's bearer token, "" if it has none.
func bearer(r *http.Request) (string, error) {
	if hs := r.Header.Values("Authorization"); len(hs) > 1 {
		// Proxies and servers pick different ones: acting on the first
		// could act for someone other than the caller meant.
		return "", venue.Errorf(venue.EUNAUTHORIZED, "Authorization is given %d times: send one Authorization header", len(hs))
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", nil
	}
	scheme, tok := h, ""
	if i := strings.IndexAny(h, " \t"); i >= 0 {
		scheme, tok = h[:i], h[i+1:]
	}
	if !strings.EqualFold(scheme, "Bearer") {
		if !knownScheme(scheme) {
			// Not repeated: a key sent as the whole header (sk-...) is
			// what such a "scheme" most often is.
			return "", venue.Errorf(venue.EUNAUTHORIZED, "The Authorization header does not start with a scheme this venue supports: send Authorization: Bearer <token>")
		}
		return "", venue.Errorf(venue.EUNAUTHORIZED, "Authorization scheme %q is not supported: send Authorization: Bearer <token>", scheme)
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "", venue.Errorf(venue.EUNAUTHORIZED, "Authorization: Bearer has no token after it")
	}
	return tok, nil
}

// knownScheme reports whether s is an HTTP authentication scheme a client
// may send (IANA's registry and common others), which a refusal may name.
func knownScheme(s string) bool {
	for _, k := range []string{"Basic", "Digest", "Negotiate", "NTLM", "DPoP", "HOBA", "Mutual", "OAuth", "Token", "ApiKey", "Key", "SCRAM-SHA-256", "AWS4-HMAC-SHA256"} {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// guarded reports whether a path needs an identity; documentation,
// discovery and the login door never do.
func guarded(path string) bool {
	for _, p := range []string{"/api/", "/mcp", "/a2a", "/dlfs/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// withHeaderUCANs adds the grants of the UCANs in X-Covia-Ucans (comma or
// space separated), each of which must be addressed to the caller.
func (a *Auth) withHeaderUCANs(r *http.Request, c venue.Caller) (venue.Caller, error) {
	var toks []string
	for _, h := range r.Header.Values("X-Covia-Ucans") {
		toks = append(toks, strings.FieldsFunc(h, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	if len(toks) == 0 {
		return c, nil
	}
	ctx, err := a.e.WithProofs(venue.WithCaller(r.Context(), c), toks)
	if err != nil {
		// The proof's own code, as in an invoke's ucans: a malformed
		// token is 400, one that proves nothing 403, and one the store
		// could not check against revocations 503. A 401 would send a
		// client signing in again, which mends none of them.
		code := venue.ErrorCode(err)
		if code != venue.EINVALID && code != venue.EFORBIDDEN && code != venue.EUNAVAILABLE {
			code = venue.EUNAUTHORIZED
		}
		return venue.Caller{}, venue.Errorf(code, "X-Covia-Ucans: %s", venue.ErrorMessage(err))
	}
	c, _ = venue.CallerFrom(ctx)
	return c, nil
}

func (a *Auth) venueKey() ed25519.PublicKey { return a.id.Key.Public().(ed25519.PublicKey) }

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
