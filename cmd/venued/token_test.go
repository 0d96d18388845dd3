package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/gridvenue/venue/sql/sqltest"
)

// TestToken_Lifetime: a token a caller issues itself is accepted for at
// most auth.maxTokenTTL (24h unless configured), however it is minted.
func TestToken_Lifetime(t *testing.T) {
	mint := func(t *testing.T, m *Main, ttl string) string {
		var out bytes.Buffer
		if err := runToken([]string{"--url", m.Config.URL, "--ttl", ttl}, func(string) string { return "" }, &out); err != nil {
			t.Fatal(err)
		}
		_, tok, _ := strings.Cut(out.String(), "TOKEN=")
		return strings.TrimSpace(tok)
	}
	for _, tc := range []struct {
		name, max, ttl string
		status         int
	}{
		{"a day is accepted by default", "", "24h", 200},
		{"two days are refused by default", "", "48h", 401},
		{"a longer maximum accepts two days", "72h", "48h", 200},
		{"a shorter maximum refuses an hour", "5m", "1h", 401},
		{"a day written in days is a day", "", "1d", 200},
		{"two days written in days are refused by default", "", "2d", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MustRunMain(t, "", func(c *Config) { c.Auth.MaxTokenTTL = tc.max })
			c := newClient(m)
			c.token = mint(t, m, tc.ttl)
			r := c.do(t, "GET", "/api/v1/secrets", nil)
			if r.status != tc.status || (tc.status == 401 && !strings.Contains(r.errorText(t), "valid for at most")) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
	for _, bad := range []string{"1x", "d", "-1d", "0"} {
		if err := runToken([]string{"--ttl", bad}, func(string) string { return "" }, io.Discard); err == nil ||
			!strings.Contains(err.Error(), "want a duration") {
			t.Errorf("--ttl %s: %v, want an error saying what a duration looks like", bad, err)
		}
	}
	cfg := defaultConfig()
	cfg.Auth.MaxTokenTTL = "forever"
	if err := cfg.validate(); err == nil || !strings.Contains(err.Error(), "auth.maxTokenTTL") {
		t.Fatalf("err = %v", err)
	}
}

// TestToken_OneTimeAcrossNodes: a one-time token (with jti) accepted by one
// node of a venue is refused by the other: the record of its use is in the
// Postgres both share.
func TestToken_OneTimeAcrossNodes(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	same := func(c *Config) { c.URL = "http://venue.test" }
	a, b := newClient(MustRunMain(t, dsn, same)), newClient(MustRunMain(t, dsn, same))
	u := newUser(t)
	now := time.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{Issuer: u.DID, Audience: jwt.ClaimStrings{"did:web:venue.test"},
		ID: "once", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute))}).SignedString(u.Key)
	if err != nil {
		t.Fatal(err)
	}
	a.token, b.token = tok, tok
	mustOK(t, a.do(t, "GET", "/api/v1/secrets", nil))
	for _, c := range []*client{b, a} {
		if r := c.do(t, "GET", "/api/v1/secrets", nil); r.status != 401 || !strings.Contains(r.errorText(t), "replayed") {
			t.Fatalf("replayed: %d %s", r.status, r.body)
		}
	}
}

// TestToken_Audience: without --url the token is for the venue the
// environment names, addressed as that venue derives its DID, so that the
// venue accepts it.
func TestToken_Audience(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantAud string
	}{
		{"nothing set: the default venue", nil, nil, "did:web:127.0.0.1%3A8080"},
		{"--url wins over the environment", []string{"--url", "https://venue.example"}, map[string]string{"VENUE_URL": "http://other.example"}, "did:web:venue.example"},
		{"VENUE_URL", nil, map[string]string{"VENUE_URL": "https://venue.example/v", "VENUE_LISTEN": "127.0.0.1:9000"}, "did:web:venue.example:v"},
		{"VENUE_LISTEN, an address", nil, map[string]string{"VENUE_LISTEN": "127.0.0.1:9000"}, "did:web:127.0.0.1%3A9000"},
		{"VENUE_LISTEN, every interface", nil, map[string]string{"VENUE_LISTEN": "0.0.0.0:9000"}, "did:web:localhost%3A9000"},
		{"VENUE_LISTEN, localhost: the address the venue gets", nil, map[string]string{"VENUE_LISTEN": "localhost:9000"}, "did:web:127.0.0.1%3A9000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := runToken(tc.args, func(k string) string { return tc.env[k] }, &out); err != nil {
				t.Fatal(err)
			}
			if aud := tokenAudience(t, out.String()); aud != tc.wantAud {
				t.Fatalf("aud %q, want %q", aud, tc.wantAud)
			}
		})
	}
	t.Run("a venue listening on localhost accepts the token VENUE_LISTEN names", func(t *testing.T) {
		m := MustRunMain(t, "", func(c *Config) { c.Listen = "localhost:0" })
		_, port, _ := strings.Cut(m.Addr, ":")
		var out bytes.Buffer
		if err := runToken(nil, func(k string) string { return map[string]string{"VENUE_LISTEN": "localhost:" + port}[k] }, &out); err != nil {
			t.Fatal(err)
		}
		_, tok, _ := strings.Cut(out.String(), "TOKEN=")
		c := newClient(m)
		c.token = strings.TrimSpace(tok)
		mustOK(t, c.do(t, "GET", "/api/v1/secrets", nil))
	})
}

// tokenAudience is the aud of the token in venued token's output.
func tokenAudience(t *testing.T, out string) string {
	t.Helper()
	_, tok, _ := strings.Cut(out, "TOKEN=")
	var claims jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(strings.TrimSpace(tok), &claims); err != nil || len(claims.Audience) != 1 {
		t.Fatalf("token %q: %v", tok, err)
	}
	return claims.Audience[0]
}
