package storetest

import (
	"fmt"
	"sync"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func testMeta(t *testing.T, s runtime.Store) {
	t.Run("unknown key is not found", func(t *testing.T) {
		_, err := s.Meta(t.Context(), "venue.key")
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("first put stores and returns the value", func(t *testing.T) {
		got, err := s.PutMetaIfAbsent(t.Context(), "venue.key", []byte("first"))
		if err != nil || string(got) != "first" {
			t.Fatalf("PutMetaIfAbsent = %q, %v", got, err)
		}
	})
	t.Run("second put returns the stored value", func(t *testing.T) {
		got, err := s.PutMetaIfAbsent(t.Context(), "venue.key", []byte("second"))
		if err != nil || string(got) != "first" {
			t.Fatalf("PutMetaIfAbsent = %q, %v; want first", got, err)
		}
		if got, err := s.Meta(t.Context(), "venue.key"); err != nil || string(got) != "first" {
			t.Fatalf("Meta = %q, %v; want first", got, err)
		}
	})
	t.Run("racing puts agree on one value", func(t *testing.T) {
		const racers = 10
		got := make([]string, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				v, err := s.PutMetaIfAbsent(t.Context(), "race", fmt.Appendf(nil, "v%d", i))
				if err != nil {
					t.Error(err)
				}
				got[i] = string(v)
			})
		}
		wg.Wait()
		for _, v := range got {
			if v != got[0] || v == "" {
				t.Fatalf("racers got %q", got)
			}
		}
	})
	t.Run("delete removes the value, and deleting nothing is no error", func(t *testing.T) {
		if _, err := s.PutMetaIfAbsent(t.Context(), "gone", []byte("v")); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := s.DeleteMeta(t.Context(), "gone"); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Meta(t.Context(), "gone")
		wantCode(t, err, venue.ENOTFOUND)
	})
}
