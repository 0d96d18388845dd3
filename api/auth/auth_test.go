package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
	"github.com/gridvenue/venue/sql"
)

// mustAuth returns the door of a fresh venue on a temporary store.
func mustAuth(tb testing.TB, opts Options) *Auth {
	tb.Helper()
	ctx := context.Background()
	st, err := sql.Open(ctx, "", sql.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	e, err := runtime.New(ctx, runtime.Config{BaseURL: "http://127.0.0.1:8080"}, runtime.Deps{Store: st})
	if err != nil {
		tb.Fatal(err)
	}
	a, err := New(e, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close(); e.Close(); st.Close() })
	return a
}

func newKey(tb testing.TB) (string, ed25519.PrivateKey) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return venue.DIDKey(pub), key
}

func sign(tb testing.TB, key ed25519.PrivateKey, c jwt.Claims) string {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func TestAuth_Authenticate(t *testing.T) {
	a := mustAuth(t, Options{})
	venueDID := a.id.DID
	did, key := newKey(t)
	other, otherKey := newKey(t)
	now := time.Now()
	claims := func(edit func(*jwt.RegisteredClaims)) *jwt.RegisteredClaims {
		c := &jwt.RegisteredClaims{Issuer: did, Subject: did, Audience: jwt.ClaimStrings{venueDID},
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute))}
		if edit != nil {
			edit(c)
		}
		return c
	}
	good, _ := SelfIssued(key, venueDID, time.Minute)
	venueTok, _ := venueToken(a.id.Key, venueDID, a.id.UserDID("mock-johndoe"), now, time.Hour)
	once := sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.ID = "n-1" }))
	asUCAN, _ := ucan.Issue(key, did, venueDID, []venue.Capability{{With: did + "/w", Can: "crud/read"}}, nil, now.Add(time.Hour))
	longUCAN, _ := ucan.Issue(key, did, venueDID, []venue.Capability{{With: did + "/w", Can: "crud/read"}}, nil, now.AddDate(0, 0, 7))
	for _, tc := range []struct {
		name    string
		header  string
		wantDID string
		wantErr string
	}{
		{"no token is the anonymous caller", "", a.id.PublicDID(), ""},
		{"self-issued did:key token", "Bearer " + good, did, ""},
		{"token addressed to the base URL", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.Audience = jwt.ClaimStrings{a.id.BaseURL} })), did, ""},
		{"venue-signed token", "Bearer " + venueTok, a.id.UserDID("mock-johndoe"), ""},
		{"UCAN as bearer", "Bearer " + asUCAN, did, ""},
		{"one-time token first use", "Bearer " + once, did, ""},
		{"one-time token replayed", "Bearer " + once, "", "replayed"},
		{"expired", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Hour)) })), "", "expired"},
		{"no expiry", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = nil })), "", "no exp"},
		{"issued in the future", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour)) })), "", "not valid yet"},
		{"wrong audience", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.Audience = jwt.ClaimStrings{"did:web:elsewhere"} })), "", "another audience: a self-issued or venue token must have aud set to this venue's DID"},
		{"no audience", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.Audience = nil })), "", "another audience"},
		{"signed by another key", "Bearer " + sign(t, otherKey, claims(nil)), "", "signature"},
		{"subject is someone else", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.Subject = other })), "", "sub must be its issuer"},
		{"forged venue token", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.Issuer = venueDID; c.Subject = a.id.UserDID("admin") })), "", "signature"},
		{"venue token for an empty user id", "Bearer " + sign(t, a.id.Key, claims(func(c *jwt.RegisteredClaims) { c.Issuer = venueDID; c.Subject = a.id.UserDID("") })), "", "one of its users"},
		{"venue token for a non-user", "Bearer " + sign(t, a.id.Key, claims(func(c *jwt.RegisteredClaims) { c.Issuer = venueDID; c.Subject = other })), "", "one of its users"},
		{"a 100-year token", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = jwt.NewNumericDate(now.AddDate(100, 0, 0)) })), "", "at most 24h0m0s"},
		{"a long token issued long ago", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) {
			c.IssuedAt = jwt.NewNumericDate(now.AddDate(-1, 0, 0))
		})), "", "at most 24h0m0s"},
		{"a long token without iat", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) {
			c.IssuedAt, c.ExpiresAt = nil, jwt.NewNumericDate(now.Add(48*time.Hour))
		})), "", "at most 24h0m0s"},
		{"a token of the longest lifetime", "Bearer " + sign(t, key, claims(func(c *jwt.RegisteredClaims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(24 * time.Hour)) })), did, ""},
		{"a long-lived UCAN as bearer", "Bearer " + longUCAN, "", "at most 24h0m0s"},
		{"HS256 is not accepted", "Bearer " + hs256(t, did, venueDID), "", "not one this venue accepts"},
		{"RS256 from an unknown issuer", "Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0.c2ln", "", "no configured OAuth provider"},
		{"alg none", "Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJkaWQ6a2V5OnoifQ.", "", `a token with alg "none" from issuer "did:key:z" is not one this venue accepts`},
		{"malformed", "Bearer not-a-jwt", "", "not a JWT"},
		{"empty bearer", "Bearer ", "", "no token"},
		{"basic auth", "Basic dXNlcjpwYXNz", "", `scheme "Basic" is not supported`},
		{"a key as the whole header is not repeated", "sk-live-THISISMYSECRETKEY1234567890abcdef", "", "does not start with a scheme this venue supports"},
		{"bearer and a tab", "Bearer\t" + good, did, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/status", nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			c, err := a.Authenticate(r)
			if tc.wantErr != "" {
				if venue.ErrorCode(err) != venue.EUNAUTHORIZED || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want 401 saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || c.DID != tc.wantDID {
				t.Fatalf("caller %+v, err %v; want %s", c, err, tc.wantDID)
			}
		})
	}
}

// TestAuth_TwoAuthorizationHeaders: a request may carry one credential;
// with two, the venue would pick one another server would not.
func TestAuth_TwoAuthorizationHeaders(t *testing.T) {
	a := mustAuth(t, Options{})
	_, key := newKey(t)
	tok, _ := SelfIssued(key, a.id.DID, time.Hour)
	r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
	r.Header.Add("Authorization", "Bearer "+tok)
	r.Header.Add("Authorization", "Bearer "+tok)
	if _, err := a.Authenticate(r); venue.ErrorCode(err) != venue.EUNAUTHORIZED || !strings.Contains(err.Error(), "Authorization is given 2 times: send one Authorization header") {
		t.Fatalf("err = %v, want 401 asking for one header", err)
	}
}

func TestAuth_MaxTokenTTL(t *testing.T) {
	a := mustAuth(t, Options{MaxTokenTTL: 200 * 365 * 24 * time.Hour})
	_, key := newKey(t)
	tok, _ := SelfIssued(key, a.id.DID, 100*365*24*time.Hour)
	r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	if _, err := a.Authenticate(r); err != nil {
		t.Fatalf("a configured maximum of 200 years refuses a 100-year token: %v", err)
	}
}

// TestAuth_OneTimeTokenSharedStore: a one-time token used through one
// door is refused by another door on the same store, as it would be by
// another node on the same Postgres.
func TestAuth_OneTimeTokenSharedStore(t *testing.T) {
	a := mustAuth(t, Options{})
	b, err := New(a.e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	did, key := newKey(t)
	now := time.Now()
	once := sign(t, key, &jwt.RegisteredClaims{Issuer: did, Audience: jwt.ClaimStrings{a.id.DID}, ID: "only-once",
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute))})
	r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
	r.Header.Set("Authorization", "Bearer "+once)
	if _, err := a.Authenticate(r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Authenticate(r); err == nil || !strings.Contains(err.Error(), "replayed") {
		t.Fatalf("replayed through another door: %v", err)
	}
}

// TestAuth_OneTimeUCANBearer: a UCAN sent as the bearer authenticates its
// issuer like a self-issued token, so with a jti it is one-time too.
func TestAuth_OneTimeUCANBearer(t *testing.T) {
	a := mustAuth(t, Options{})
	did, key := newKey(t)
	tok := sign(t, key, jwt.MapClaims{"iss": did, "aud": a.id.DID, "ucv": ucan.Version, "jti": "u-1",
		"att": []map[string]string{{"with": did + "/w", "can": "crud/read"}}, "exp": time.Now().Add(time.Minute).Unix()})
	r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	if c, err := a.Authenticate(r); err != nil || c.DID != did {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := a.Authenticate(r); err == nil || !strings.Contains(err.Error(), "replayed") {
		t.Fatalf("replayed UCAN bearer: %v", err)
	}
}

func TestAuth_RequireToken(t *testing.T) {
	a := mustAuth(t, Options{RequireToken: true})
	for path, want := range map[string]bool{"/api/v1/status": true, "/mcp": true, "/.well-known/did.json": false, "/login": false, "/openapi": false} {
		_, err := a.Authenticate(httptest.NewRequest("GET", path, nil))
		if got := venue.ErrorCode(err) == venue.EUNAUTHORIZED; got != want {
			t.Errorf("%s: refused = %v, want %v (%v)", path, got, want, err)
		}
	}
}

func TestAuth_Middleware(t *testing.T) {
	a := mustAuth(t, Options{})
	var seen venue.Caller
	h := a.Middleware(httpHandler(func(c venue.Caller) { seen = c }))
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer junk")
	h.ServeHTTP(w, r)
	if w.Code != 401 || !strings.HasPrefix(w.Body.String(), `{"error":"Invalid token`) || w.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", nil))
	if w.Code != 200 || !seen.Anonymous {
		t.Fatalf("%d %+v", w.Code, seen)
	}
}

func hs256(t *testing.T, iss, aud string) string {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Issuer: iss, Audience: jwt.ClaimStrings{aud},
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}).SignedString([]byte("guessable"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func FuzzAuthenticate(f *testing.F) {
	a := mustAuth(f, Options{})
	did, key := newKey(f)
	good, _ := SelfIssued(key, a.id.DID, time.Minute)
	u, _ := ucan.Issue(key, did, a.id.DID, []venue.Capability{{With: did, Can: "*"}}, nil, time.Now().Add(time.Hour))
	for _, s := range []string{good, u, "a.b.c", "eyJhbGciOiJFZERTQSJ9.e30.", "", "Bearer"} {
		f.Add(s, "")
	}
	f.Add(good, u)
	f.Fuzz(func(t *testing.T, tok, ucans string) {
		r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		r.Header.Set("X-Covia-Ucans", ucans)
		c, err := a.Authenticate(r)
		if err == nil && c.DID == "" {
			t.Fatal("no caller and no error")
		}
		if err != nil {
			// 400 and 403 only for X-Covia-Ucans, as for an invoke's ucans.
			code := venue.ErrorCode(err)
			proof := (code == venue.EINVALID || code == venue.EFORBIDDEN) && strings.HasPrefix(venue.ErrorMessage(err), "X-Covia-Ucans: ")
			if code != venue.EUNAUTHORIZED && code != venue.EUNAVAILABLE && !proof {
				t.Fatalf("code %s: %v", code, err)
			}
		}
	})
}

func TestAuth_CachedTokenExpires(t *testing.T) {
	a := mustAuth(t, Options{})
	_, key := newKey(t)
	tok, _ := SelfIssued(key, a.id.DID, time.Minute)
	r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	for range 2 {
		if _, err := a.Authenticate(r); err != nil {
			t.Fatal(err)
		}
	}
	a.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, err := a.Authenticate(r); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("an expired token from the cache: %v", err)
	}
}

func TestAuth_OpenRoutesIgnoreTokens(t *testing.T) {
	a := mustAuth(t, Options{RequireToken: true})
	r := httptest.NewRequest("GET", "/.well-known/did.json", nil)
	r.Header.Set("Authorization", "Bearer stale")
	if c, err := a.Authenticate(r); err != nil || !c.Anonymous {
		t.Fatalf("%+v %v", c, err)
	}
}

// TestAuth_UserIDs: no two (provider, subject) pairs name the same user:
// a subject shaped like the hash of another is hashed too, and a subject
// whose id falls among a longer-named provider's is refused.
func TestAuth_UserIDs(t *testing.T) {
	corp := &provider{Provider: Provider{Name: "corp", Issuer: "https://idp.example"}}
	hashed := corp.userID("alice@example.com")
	forged := strings.TrimPrefix(hashed, "corp-")
	for _, tc := range []struct {
		name, sub, want string
	}{
		{"a plain subject is kept", "alice", "corp-alice"},
		{"a numeric subject is kept", "108234567890123456789", "corp-108234567890123456789"},
		{"a subject a DID path cannot hold is hashed", "alice@example.com", hashed},
		{"a subject shaped like that hash is hashed too", forged, corp.userID(forged)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := corp.userID(tc.sub); got != tc.want {
				t.Fatalf("userID(%q) = %q, want %q", tc.sub, got, tc.want)
			}
		})
	}
	if corp.userID(forged) == hashed {
		t.Fatalf("subject %q is alice@example.com's user %s", forged, hashed)
	}
	a := mustAuth(t, Options{Providers: []Provider{
		{Name: "corp", Issuer: "https://a.example", ClientID: "x"}, {Name: "corp-dev", Issuer: "https://b.example", ClientID: "y"}}})
	if id, err := a.userIDOf(a.providers["corp-dev"], "alice"); err != nil || id != "corp-dev-alice" {
		t.Fatalf("corp-dev's alice: %q %v", id, err)
	}
	if id, err := a.userIDOf(a.providers["corp"], "dev-alice"); venue.ErrorCode(err) != venue.EUNAUTHORIZED || !strings.Contains(err.Error(), "would be the same venue user as a user of provider corp-dev") {
		t.Fatalf("corp's dev-alice: %q %v", id, err)
	}
	if id, err := a.userIDOf(a.providers["corp"], "alice"); err != nil || id != "corp-alice" {
		t.Fatalf("corp's alice: %q %v", id, err)
	}
}
