package storetest

import (
	"sync"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

func testUsers(t *testing.T, s runtime.Store) {
	ctx := t.Context()
	count := func(t *testing.T, want int) {
		t.Helper()
		if n, err := s.CountUsers(ctx); err != nil || n != want {
			t.Fatalf("CountUsers = %d, %v; want %d", n, err, want)
		}
	}
	t.Run("unknown user is absent", func(t *testing.T) {
		if ok, err := s.HasUser(ctx, alice); err != nil || ok {
			t.Fatalf("HasUser = %v, %v", ok, err)
		}
		count(t, 0)
	})
	t.Run("touched user is known and counted once", func(t *testing.T) {
		for range 3 {
			if err := s.TouchUser(ctx, alice, 100); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := s.HasUser(ctx, alice); err != nil || !ok {
			t.Fatalf("HasUser = %v, %v", ok, err)
		}
		count(t, 1)
	})
	t.Run("racing touches count once", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if err := s.TouchUser(ctx, bob, 200); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		count(t, 2)
	})
}
