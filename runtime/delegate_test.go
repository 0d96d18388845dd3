package runtime_test

import (
	"context"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_IssueUCAN: the venue signs delegations for callers without a
// key of their own, only of what they hold, and only where its signature
// roots a chain; what it signs proves exactly the grants asked for.
func TestEngine_IssueUCAN(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Access.Admins = []string{"did:key:admin"} })
	id := h.Identity()
	carolDID := id.UserDID("google-carol")
	bg := context.Background()
	carol := venue.WithCaller(bg, venue.Caller{DID: carolDID})
	admin := venue.WithCaller(bg, venue.Caller{DID: "did:key:admin"})
	anon := venue.WithCaller(bg, h.PublicCaller())
	agent := venue.WithCaller(bg, venue.Caller{DID: carolDID}.Bounded([]venue.Capability{{With: carolDID + "/w/public", Can: "crud/read"}}))
	hour, soon := time.Now().Add(time.Hour), time.Now().Add(2*time.Minute)
	manage := []venue.Capability{{With: id.DID, Can: venue.AbilityMCPManage}}
	// bob holds mcp/manage through an admin's UCAN lasting three minutes
	granted := venue.WithCaller(bg, venue.Caller{DID: "did:key:bob"}.WithGrantsUntil(time.Now().Add(3*time.Minute), manage...))
	read := func(with string) []venue.Capability { return []venue.Capability{{With: with, Can: venue.AbilityRead}} }
	for _, tc := range []struct {
		name string
		ctx  context.Context
		aud  string
		att  []venue.Capability
		exp  time.Time
		code string
		want venue.Capability // the grant the token proves to aud
	}{
		{"a user delegates its namespace", carol, "did:key:bob", read(carolDID + "/w/notes"), hour, "", venue.Capability{With: carolDID + "/w/notes", Can: venue.AbilityRead}},
		{"a path without a DID is the caller's", carol, "did:key:bob", read("w/notes"), hour, "", venue.Capability{With: carolDID + "/w/notes", Can: venue.AbilityRead}},
		{"an admin delegates a venue-wide ability", admin, "did:key:bob", []venue.Capability{{With: id.DID, Can: venue.AbilityMCPManage}}, hour, "", venue.Capability{With: id.DID, Can: venue.AbilityMCPManage}},
		{"an agent within its bound", agent, "did:key:bob", read(carolDID + "/w/public"), hour, "", venue.Capability{With: carolDID + "/w/public", Can: venue.AbilityRead}},
		{"an agent beyond its bound", agent, "did:key:bob", read(carolDID + "/w/notes"), hour, venue.EFORBIDDEN, venue.Capability{}},
		{"a user without mcp/manage", carol, "did:key:bob", []venue.Capability{{With: id.DID, Can: venue.AbilityMCPManage}}, hour, venue.EFORBIDDEN, venue.Capability{}},
		{"another user's namespace", carol, "did:key:bob", read(id.UserDID("dave") + "/w"), hour, venue.EFORBIDDEN, venue.Capability{}},
		{"a did:key signs for itself", h.alice, "did:key:bob", read("did:key:alice/w"), hour, venue.EFORBIDDEN, venue.Capability{}},
		{"the anonymous caller", anon, "did:key:bob", read("w/x"), hour, venue.EUNAUTHORIZED, venue.Capability{}},
		{"no audience DID", carol, "bob", read("w/notes"), hour, venue.EINVALID, venue.Capability{}},
		{"no grants", carol, "did:key:bob", nil, hour, venue.EINVALID, venue.Capability{}},
		{"a grant without an ability", carol, "did:key:bob", []venue.Capability{{With: "w/notes"}}, hour, venue.EINVALID, venue.Capability{}},
		{"already expired", carol, "did:key:bob", read("w/notes"), time.Now().Add(-time.Minute), venue.EINVALID, venue.Capability{}},
		{"a grant held through a UCAN, passed on for as long", granted, "did:key:dave", manage, soon, "", venue.Capability{With: id.DID, Can: venue.AbilityMCPManage}},
		{"a grant held through a UCAN, passed on for longer", granted, "did:key:dave", manage, hour, venue.EFORBIDDEN, venue.Capability{}},
		{"an admin's own ability, for as long as asked", admin, "did:key:dave", manage, time.Now().Add(runtime.MaxDelegation / 2), "", venue.Capability{With: id.DID, Can: venue.AbilityMCPManage}},
		{"lasting too long", carol, "did:key:bob", read("w/notes"), time.Now().Add(2 * runtime.MaxDelegation), venue.EINVALID, venue.Capability{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := h.IssueUCAN(tc.ctx, tc.aud, tc.att, tc.exp)
			if venue.ErrorCode(err) != tc.code {
				t.Fatalf("err = %v, want code %q", err, tc.code)
			}
			if err != nil {
				return
			}
			u, err := h.Verifier().Verify(tok, tc.aud)
			if err != nil || u.Issuer != id.DID || len(u.Grants) != 1 || u.Grants[0] != tc.want {
				t.Fatalf("the token proves %+v, %v; want %+v from the venue", u, err, tc.want)
			}
		})
	}
}
