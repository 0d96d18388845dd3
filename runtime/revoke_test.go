package runtime_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
	"github.com/gridvenue/venue/sql"
)

// TestEngine_RevokeUCAN: who may revoke a UCAN, and that a revoked one is
// refused for as long as the verifier would take it. A caller confined to
// some of its namespace (a UCAN its issuer handed out as a share and sent
// as the bearer, an agent on its caps) acts for the issuer only within its
// bound: it holds no ucan/revoke unless the bound grants it, else a share
// of w/notes would end every other delegation its issuer made. A token the
// verifier still takes past its exp (the clock skew it forgives) is still
// refused once revoked, and a token not valid yet is revoked before it is.
func TestEngine_RevokeUCAN(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := &frozenClock{t: time.Now().Truncate(time.Second)}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true}, runtime.Deps{Store: st, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })

	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	bob := venue.DIDKey(pub)
	notes := []venue.Capability{{With: bob + "/w/notes", Can: venue.AbilityRead}}
	mint := func(nonce string, exp, nbf time.Time) string {
		t.Helper()
		c := &ucan.Claims{Issuer: bob, Audience: "did:key:carol", Version: ucan.Version, Att: notes, Expires: jwt.NewNumericDate(exp), Nonce: nonce}
		if !nbf.IsZero() {
			c.NotBefore = jwt.NewNumericDate(nbf)
		}
		tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	as := func(c venue.Caller) context.Context { return venue.WithCaller(context.Background(), c) }
	plain := venue.Caller{DID: bob}
	share := plain.WithGrantsUntil(clock.now().Add(time.Hour), notes...).Bounded(notes).Shared("beef")
	whole := plain.Bounded([]venue.Capability{{With: bob, Can: "*"}})
	hour := clock.now().Add(time.Hour)

	for _, tc := range []struct {
		name   string
		caller venue.Caller
		nbf    time.Time
		code   string
	}{
		{"its issuer", plain, time.Time{}, ""},
		{"its issuer, before the token is valid", plain, clock.now().Add(10 * time.Minute), ""},
		{"a share of its issuer's notes", share, time.Time{}, venue.EFORBIDDEN},
		{"its issuer confined to what it holds whole", whole, time.Time{}, ""},
		{"someone else", venue.Caller{DID: "did:key:mallory"}, time.Time{}, venue.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := mint(tc.name, hour, tc.nbf)
			_, err := e.RevokeUCAN(as(tc.caller), tok)
			if venue.ErrorCode(err) != tc.code {
				t.Fatalf("RevokeUCAN = %v, want code %q", err, tc.code)
			}
			if tc.code != "" {
				if err := e.CheckRevoked([]string{tok}); err != nil {
					t.Fatalf("refused, yet recorded as revoked: %v", err)
				}
			}
		})
	}

	t.Run("refused while the verifier forgives its exp", func(t *testing.T) {
		exp := clock.now().Add(time.Minute)
		tok := mint("skew", exp, time.Time{})
		if _, err := e.RevokeUCAN(as(plain), tok); err != nil {
			t.Fatal(err)
		}
		clock.advance(time.Minute + 10*time.Second) // past exp, within the 30 s forgiven
		if u, err := e.Verifier().Verify(tok, "did:key:carol"); err == nil {
			t.Fatalf("a revoked token verified %s after its exp: %+v", clock.now().Sub(exp), u)
		}
	})
}
