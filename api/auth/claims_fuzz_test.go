package auth

import (
	"crypto/ed25519"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

// FuzzAuthenticateClaims fuzzes the claims of bearer tokens, which
// FuzzAuthenticate cannot reach past a signature: issuer, subject,
// audience, exp, iat, nbf, jti, kid and att, signed with one of the test
// keys (a did:key, another did:key, the venue's own) whichever issuer they
// name. Whatever the door accepts must hold:
//   - the caller is the DID of the key that signed: a did:key's own DID for
//     its key, one of the venue's users only for the venue's key;
//   - the token is addressed to this venue, has exp, is in its time window,
//     and one the caller issued itself lasts at most MaxTokenTTL;
//   - a token a caller issues itself with a jti is accepted at most once
//     (the venue's own tokens carry a jti as an id, and are reusable).
func FuzzAuthenticateClaims(f *testing.F) {
	a := mustAuth(f, Options{})
	keys := []ed25519.PrivateKey{a.id.Key}
	for range 2 {
		_, k := newKey(f)
		keys = append(keys, k)
	}
	f.Add(uint8(1), uint8(0), "", uint8(0), int64(300), int64(0), int64(0), uint8(0b011), "", "")
	f.Add(uint8(0), uint8(2), "u:mock-1", uint8(0), int64(3600), int64(0), int64(0), uint8(0b011), "n", "")
	f.Add(uint8(1), uint8(0), "", uint8(1), int64(60), int64(-10), int64(0), uint8(0b111), "once", "crud/read")
	f.Add(uint8(2), uint8(1), "x", uint8(2), int64(100*365*86400), int64(-5), int64(3), uint8(0b101), "", "*")
	f.Fuzz(func(t *testing.T, keySel, issSel uint8, sub string, audSel uint8, exp, iat, nbf int64, flags uint8, jti, att string) {
		key := keys[int(keySel)%len(keys)]
		signer := venue.DIDKey(key.Public().(ed25519.PublicKey))
		if key.Equal(a.id.Key) {
			signer = a.id.DID
		}
		now := time.Now()
		c := jwt.MapClaims{"iss": []string{signer, venue.DIDKey(keys[1].Public().(ed25519.PublicKey)), a.id.DID, sub}[issSel%4]}
		c["aud"] = []any{a.id.DID, a.id.BaseURL, "did:web:elsewhere", []string{"x", a.id.DID}}[audSel%4]
		if strings.HasPrefix(sub, "u:") {
			sub = a.id.DID + ":" + sub // one of the venue's users
		}
		for i, kv := range []struct {
			k string
			v any
		}{{"exp", now.Unix() + exp}, {"iat", now.Unix() + iat}, {"nbf", now.Unix() + nbf}, {"sub", sub}, {"jti", jti}} {
			if flags&(1<<i) != 0 {
				c[kv.k] = kv.v
			}
		}
		if att != "" {
			c["att"] = []map[string]string{{"with": signer + "/w", "can": att}}
		}
		tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
		if flags&(1<<5) != 0 {
			tok.Header["kid"] = strings.TrimPrefix(signer, "did:key:")
		}
		s, err := tok.SignedString(key)
		if err != nil {
			t.Skip()
		}
		c = jwt.MapClaims{} // as the door reads them
		if _, _, err := jwt.NewParser().ParseUnverified(s, c); err != nil {
			t.Fatal(err)
		}
		accepted := 0
		for range 2 {
			r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
			r.Header.Set("Authorization", "Bearer "+s)
			caller, err := a.Authenticate(r)
			if err != nil {
				if code := venue.ErrorCode(err); code != venue.EUNAUTHORIZED && code != venue.EUNAVAILABLE {
					t.Fatalf("code %s: %v", code, err)
				}
				continue
			}
			accepted++
			mustHoldClaims(t, a, c, signer, caller, now)
		}
		if id, _ := c["jti"].(string); id != "" && signer != a.id.DID && accepted > 1 {
			t.Fatalf("a one-time token was accepted %d times: %v", accepted, c)
		}
	})
}

// mustHoldClaims checks what an accepted token's claims c, signed by the
// key of signer, must be.
func mustHoldClaims(t *testing.T, a *Auth, c jwt.MapClaims, signer string, caller venue.Caller, before time.Time) {
	t.Helper()
	const slack = 2 * time.Second // the clock moves between minting and checking
	switch {
	case caller.Anonymous:
		t.Fatalf("a token made an anonymous caller: %v", c)
	case signer == a.id.DID && (!strings.HasPrefix(caller.DID, a.id.DID+":u:") || caller.DID == a.id.DID+":u:"):
		t.Fatalf("a venue-signed token made %s the caller, not one of its users: %v", caller.DID, c)
	case signer != a.id.DID && caller.DID != signer:
		t.Fatalf("a token signed by %s made %s the caller: %v", signer, caller.DID, c)
	}
	aud, _ := c.GetAudience()
	if !slicesContain(aud, a.id.DID) && !slicesContain(aud, a.id.BaseURL) {
		t.Fatalf("accepted a token for %v", aud)
	}
	exp, _ := c.GetExpirationTime()
	if exp == nil || !exp.Add(leeway).After(before) {
		t.Fatalf("accepted a token without exp or expired: %v", c)
	}
	if nbf, _ := c.GetNotBefore(); nbf != nil && nbf.After(time.Now().Add(leeway)) {
		t.Fatalf("accepted a token before its nbf: %v", c)
	}
	if signer == a.id.DID {
		return // the venue's own tokens last as long as it says
	}
	from := before
	if iat, _ := c.GetIssuedAt(); iat != nil {
		from = iat.Time
	}
	if life := exp.Sub(from); life > a.opts.MaxTokenTTL+leeway+slack {
		t.Fatalf("accepted a self-issued token valid for %s: %v", life, c)
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
