package venue_test

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestCapability_Covers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		grant     venue.Capability
		with, can string
		want      bool
	}{
		{"same resource and ability", venue.Capability{"did:key:a/w/x", "crud/read"}, "did:key:a/w/x", "crud/read", true},
		{"child resource", venue.Capability{"did:key:a/w", "crud/read"}, "did:key:a/w/x/y", "crud/read", true},
		{"sibling with a shared prefix", venue.Capability{"did:key:a/w/x", "crud/read"}, "did:key:a/w/xy", "crud/read", false},
		{"parent resource", venue.Capability{"did:key:a/w/x", "crud/read"}, "did:key:a/w", "crud/read", false},
		{"ability namespace", venue.Capability{"did:key:a", "crud"}, "did:key:a/w", "crud/write", true},
		{"ability with a shared prefix", venue.Capability{"did:key:a", "crud/read"}, "did:key:a/w", "crud/readwrite", false},
		{"any ability", venue.Capability{"did:key:a", "*"}, "did:key:a/g", "agent/create", true},
		{"other owner", venue.Capability{"did:key:a", "*"}, "did:key:ab/w", "crud/read", false},
		{"empty grant", venue.Capability{}, "did:key:a", "crud/read", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.grant.Covers(tc.with, tc.can); got != tc.want {
				t.Fatalf("Covers = %v, want %v", got, tc.want)
			}
		})
	}
	if (venue.Capability{"did:key:a", "crud"}).CoversCapability(venue.Capability{"did:key:a", "*"}) {
		t.Fatal("a named ability covers *")
	}
}

func TestCaller_Authority(t *testing.T) {
	c := venue.Caller{DID: "did:key:a"}
	g := c.WithGrants(venue.Capability{With: "did:key:b/w", Can: "crud/read"})
	b := g.Bounded(nil)
	if c.Grants() != nil || len(g.Grants()) != 1 || g.Bound() != nil || b.Bound() == nil || len(b.Grants()) != 1 || c != (venue.Caller{DID: "did:key:a"}) {
		t.Fatalf("%+v %+v %+v", c, g, b)
	}
}
