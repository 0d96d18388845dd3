package main

import (
	"bytes"
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
