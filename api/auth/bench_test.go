package auth

import (
	"net/http/httptest"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// BenchmarkAuthenticate is the identity door's cost per request, by kind
// of token: go test -run '^$' -bench Authenticate ./api/auth/
func BenchmarkAuthenticate(b *testing.B) {
	a := mustAuth(b, Options{})
	did, key := newKey(b)
	self, _ := SelfIssued(key, a.id.DID, time.Hour)
	venueTok, _ := venueToken(a.id.Key, a.id.DID, a.id.UserDID("mock-x"), time.Now(), time.Hour)
	bob, bobKey := newKey(b)
	proof, _ := ucan.Issue(key, did, bob, []venue.Capability{{With: did + "/w", Can: "crud/read"}}, nil, time.Now().Add(2*time.Hour))
	chained, _ := ucan.Issue(bobKey, bob, a.id.DID, []venue.Capability{{With: did + "/w/x", Can: "crud/read"}}, []string{proof}, time.Now().Add(time.Hour))
	for _, bc := range []struct{ name, token string }{
		{"anonymous", ""}, {"self-issued", self}, {"venue-signed", venueTok}, {"UCAN with one proof", chained},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
			if bc.token != "" {
				r.Header.Set("Authorization", "Bearer "+bc.token)
			}
			for b.Loop() {
				if _, err := a.Authenticate(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		if bc.token == "" {
			continue
		}
		b.Run(bc.name+", first use", func(b *testing.B) {
			for b.Loop() {
				if _, err := a.check(b.Context(), bc.token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
