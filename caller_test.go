package venue_test

import (
	"context"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

func TestCallerFrom(t *testing.T) {
	alice := venue.Caller{DID: "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"}
	anon := venue.Caller{DID: "did:web:venue.example:public", Anonymous: true}
	bob := venue.Caller{DID: "did:web:bob.example"}
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		want   venue.Caller
		wantOK bool
	}{
		{"no caller", context.Background(), venue.Caller{}, false},
		{"authenticated caller", venue.WithCaller(context.Background(), alice), alice, true},
		{"anonymous caller keeps its flag", venue.WithCaller(context.Background(), anon), anon, true},
		{"caller without DID does not count", venue.WithCaller(context.Background(), venue.Caller{Anonymous: true}), venue.Caller{Anonymous: true}, false},
		{"inner caller wins", venue.WithCaller(venue.WithCaller(context.Background(), alice), bob), bob, true},
		{"survives derived contexts", func() context.Context {
			ctx, cancel := context.WithCancel(venue.WithCaller(context.Background(), alice))
			t.Cleanup(cancel)
			return context.WithValue(ctx, struct{ k int }{1}, "x")
		}(), alice, true},
		{"a plain string key is not the caller", context.WithValue(context.Background(), "caller", alice), venue.Caller{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := venue.CallerFrom(tc.ctx)
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("CallerFrom = %+v, %v; want %+v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestCaller_ShareOutlivesEveryChange: a caller acting under a share keeps
// it through every constructor of its authority; the jobs it begins are
// then followed by the same share whatever grants or bound come after.
func TestCaller_ShareOutlivesEveryChange(t *testing.T) {
	cap := venue.Capability{With: "did:key:zA/w/notes", Can: venue.AbilityRead}
	shared := venue.Caller{DID: "did:key:zA"}.Shared("5e5e")
	for _, tc := range []struct {
		name string
		c    venue.Caller
	}{
		{"shared", shared},
		{"with grants", shared.WithGrants(cap)},
		{"with grants until", shared.WithGrantsUntil(time.Now().Add(time.Hour), cap)},
		{"bounded", shared.Bounded([]venue.Capability{cap})},
		{"without grants", shared.WithGrants(cap).WithoutGrants()},
		{"granted, then bounded", shared.WithGrants(cap).Bounded(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Share(); got != "5e5e" {
				t.Fatalf("share %q, want 5e5e", got)
			}
		})
	}
	if s := (venue.Caller{DID: "did:key:zA"}).WithGrants(cap).Share(); s != "" {
		t.Fatalf("a caller under no share has share %q", s)
	}
	if shared.Authority.Share != "5e5e" || shared.WithGrants(cap).Authority == shared.Authority {
		t.Fatal("a constructor changed the authority it was given")
	}
}
