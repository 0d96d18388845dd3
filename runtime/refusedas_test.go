package runtime

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestRefusedAs(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a bound the store met", venue.Errorf(venue.ETOOLARGE, "over the 10 bytes one user may store"), "Cannot PUT asset content: over the 10 bytes one user may store"},
		{"worded already", venue.Errorf(venue.ETOOLARGE, "Cannot PUT asset content: an operation module may be at most 64 bytes"), "Cannot PUT asset content: an operation module may be at most 64 bytes"},
		{"another refusal", venue.Errorf(venue.EINVALID, "bad"), "bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := venue.ErrorMessage(refusedAs("Cannot PUT asset content", tc.err)); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
