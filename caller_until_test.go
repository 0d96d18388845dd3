package venue_test

import (
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

func TestCaller_GrantedUntil(t *testing.T) {
	soon, later := time.UnixMilli(1000), time.UnixMilli(2000)
	c := venue.Caller{DID: "did:key:a"}.
		WithGrantsUntil(soon, venue.Capability{With: "did:key:b/w", Can: "crud"}).
		WithGrantsUntil(later, venue.Capability{With: "did:key:b/w/notes", Can: "crud/read"}).
		WithGrants(venue.Capability{With: "did:key:c", Can: "*"})
	for _, tc := range []struct {
		name, with, can string
		want            time.Time
		ok              bool
	}{
		{"one grant covers it", "did:key:b/w/x", "crud/write", soon, true},
		{"the latest of two covering grants", "did:key:b/w/notes/a", "crud/read", later, true},
		{"a grant without expiry", "did:key:c/w", "crud/read", time.Time{}, true},
		{"nothing covers it", "did:key:d/w", "crud/read", time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := c.Bounded(nil).GrantedUntil(tc.with, tc.can)
			if ok != tc.ok || !got.Equal(tc.want) {
				t.Fatalf("GrantedUntil = %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
