package runtime

import (
	"fmt"
	"testing"
)

func TestForgetful(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stores   []string
		wantKept []string
		wantGone []string
	}{
		{"up to max, all kept", []string{"a", "b", "c"}, []string{"a", "b", "c"}, nil},
		{"a key stored again is not counted twice", []string{"a", "a", "a", "b", "c"}, []string{"a", "b", "c"}, nil},
		{"past max, all forgotten", []string{"a", "b", "c", "d"}, nil, []string{"a", "b", "c", "d"}},
		{"and it starts again", []string{"a", "b", "c", "d", "e"}, []string{"e"}, []string{"a", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := forgetful[int]{max: 3}
			for i, k := range tc.stores {
				f.store(k, i)
			}
			for _, k := range tc.wantKept {
				if _, ok := f.load(k); !ok {
					t.Errorf("%s forgotten", k)
				}
			}
			for _, k := range tc.wantGone {
				if v, ok := f.load(k); ok {
					t.Errorf("%s kept (%d)", k, v)
				}
			}
		})
	}
	t.Run("many keys never hold more than max", func(t *testing.T) {
		f := forgetful[bool]{max: 100}
		for i := range 10_000 {
			f.store(fmt.Sprint(i), true)
		}
		n := 0
		f.m.Range(func(any, any) bool { n++; return true })
		if n > 100 {
			t.Fatalf("%d keys held", n)
		}
	})
}
