package ucan

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

// rawToken signs header and claims, given as JSON text, with p's key (or
// with HMAC under p's public key for alg HS256, or unsigned for none).
func rawToken(p party, header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	in := enc([]byte(header)) + "." + enc([]byte(claims))
	switch {
	case strings.Contains(header, `"none"`):
		return in + "."
	case strings.Contains(header, `"HS256"`):
		m := hmac.New(sha256.New, p.key.Public().(ed25519.PublicKey))
		m.Write([]byte(in))
		return in + "." + enc(m.Sum(nil))
	}
	return in + "." + enc(ed25519.Sign(p.key, []byte(in)))
}

// TestVerifier_Payload: claims that readers would read differently, a
// grant the venue would widen by ignoring its caveats, a kid naming
// another key and an alg other than EdDSA are refused, each saying what.
func TestVerifier_Payload(t *testing.T) {
	alice, bob, carol, mallory := newParty(t), newParty(t), newParty(t), newParty(t)
	exp := time.Now().Add(time.Hour).Unix()
	head := `{"alg":"EdDSA","typ":"JWT","kid":"` + venue.Multikey(alice.key.Public().(ed25519.PublicKey)) + `"}`
	claims := func(extra string) string {
		return `{"iss":"` + alice.did + `","aud":"` + bob.did + `","att":[{"with":"` + alice.did + `/w/notes","can":"crud/read"` + extra + `}],"exp":` + strconv.FormatInt(exp, 10)
	}
	withExp := func(exp string) string {
		return `{"iss":"` + alice.did + `","aud":"` + bob.did + `","att":[{"with":"` + alice.did + `/w/notes","can":"crud/read"}],"exp":` + exp + `}`
	}
	v := &Verifier{}
	for _, tc := range []struct {
		name, header, claims, wantCode, wantMsg string
	}{
		{"plain", head, claims("") + `}`, "", ""},
		{"kid as the did", `{"alg":"EdDSA","kid":"` + alice.did + `"}`, claims("") + `}`, "", ""},
		{"no kid", `{"alg":"EdDSA"}`, claims("") + `}`, "", ""},
		{"empty caveats", head, claims(`,"nb":{}`) + `}`, "", ""},
		{"no caveats as UCAN 0.10 writes them", head, claims(`,"nb":[{}]`) + `}`, "", ""},
		{"kid as the did with its fragment", `{"alg":"EdDSA","kid":"` + alice.did + `#` + venue.Multikey(alice.key.Public().(ed25519.PublicKey)) + `"}`, claims("") + `}`, "", ""},
		{"kid in a form naming no key here", `{"alg":"EdDSA","kid":"NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"}`, claims("") + `}`, "", ""},
		{"kid of another DID", `{"alg":"EdDSA","kid":"` + mallory.did + `"}`, claims("") + `}`, venue.EFORBIDDEN, "kid names another key"},
		{"aud twice", head, claims("") + `,"aud":"` + carol.did + `"}`, venue.EINVALID, `"aud" twice`},
		{"aud in another case", head, `{"AUD":"` + bob.did + `",` + claims("")[1:] + `}`, venue.EINVALID, `"AUD" is not "aud"`},
		{"att in another case", head, claims("") + `,"Att":[{"with":"` + alice.did + `/w/private","can":"crud/read"}]}`, venue.EINVALID, `"Att" is not "att"`},
		{"with in another case", head, claims(`,"WITH":"`+alice.did+`/w/private"`) + `}`, venue.EINVALID, `"WITH" is not "with"`},
		{"caveats", head, claims(`,"nb":{"maxBytes":10}`) + `}`, venue.EINVALID, "caveats (nb)"},
		{"kid of another key", `{"alg":"EdDSA","kid":"` + venue.Multikey(mallory.key.Public().(ed25519.PublicKey)) + `"}`, claims("") + `}`, venue.EFORBIDDEN, "kid names another key"},
		{"exp in quotes", head, withExp(`"` + strconv.FormatInt(exp, 10) + `"`), venue.EINVALID, "UCAN exp is"},
		{"exp past any time", head, withExp(`1e300`), venue.EINVALID, "whole seconds since 1970"},
		{"exp with a fraction", head, withExp(strconv.FormatInt(exp, 10) + `.5`), venue.EINVALID, "whole seconds since 1970"},
		{"nbf before 1970", head, claims("") + `,"nbf":-5}`, venue.EINVALID, "UCAN nbf is -5"},
		{"alg none", `{"alg":"none"}`, claims("") + `}`, venue.EINVALID, `alg "none": this venue accepts only EdDSA`},
		{"alg HS256", `{"alg":"HS256"}`, claims("") + `}`, venue.EINVALID, `alg "HS256": this venue accepts only EdDSA`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(rawToken(alice, tc.header, tc.claims), bob.did)
			if tc.wantCode == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if venue.ErrorCode(err) != tc.wantCode || !strings.Contains(venue.ErrorMessage(err), tc.wantMsg) {
				t.Fatalf("err = %v, want %s saying %q", err, tc.wantCode, tc.wantMsg)
			}
		})
	}
}
