package venue_test

import (
	"context"
	"testing"

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
