package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func testSecrets(t *testing.T, s runtime.Store) {
	ctx := t.Context()
	put := func(t *testing.T, owner, name, value string, at int64) {
		t.Helper()
		if err := s.PutSecret(ctx, owner, name, []byte(value), at, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"b", "a.1", "C", "a"} {
		put(t, alice, n, "sealed-"+n, 100)
	}
	put(t, bob, "a", "bob-a", 200)
	for _, tc := range []struct {
		name, owner, secret string
		want                string
		updated             int64
		code                string
	}{
		{"owner reads its secret", alice, "a", "sealed-a", 100, ""},
		{"other owner's secret of the same name is its own", bob, "a", "bob-a", 200, ""},
		{"other owner cannot read it", bob, "b", "", 0, venue.ENOTFOUND},
		{"unknown name is not found", alice, "zzz", "", 0, venue.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, updated, err := s.Secret(ctx, tc.owner, tc.secret)
			wantCode(t, err, tc.code)
			if err == nil && (string(got) != tc.want || updated != tc.updated) {
				t.Fatalf("Secret = %q, %d; want %q, %d", got, updated, tc.want, tc.updated)
			}
		})
	}
	t.Run("names are sorted bytewise and per owner", func(t *testing.T) {
		got, err := s.SecretNames(ctx, alice)
		if want := []string{"C", "a", "a.1", "b"}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("SecretNames = %q, %v; want %q", got, err, want)
		}
		if got, err := s.SecretNames(ctx, "did:key:nobody"); err != nil || len(got) != 0 {
			t.Fatalf("SecretNames of unknown owner = %q, %v", got, err)
		}
		times, err := s.SecretTimes(ctx, alice)
		if err != nil || len(times) != 4 || times[0].Name != "C" || times[3].Name != "b" {
			t.Fatalf("SecretTimes = %+v, %v", times, err)
		}
		for _, tm := range times {
			if _, updated, _ := s.Secret(ctx, alice, tm.Name); updated != tm.Updated {
				t.Fatalf("SecretTimes gives %s stored at %d; Secret says %d", tm.Name, tm.Updated, updated)
			}
		}
	})
	t.Run("put replaces value and time", func(t *testing.T) {
		put(t, alice, "b", "sealed-b2", 300)
		got, updated, err := s.Secret(ctx, alice, "b")
		if err != nil || !bytes.Equal(got, []byte("sealed-b2")) || updated != 300 {
			t.Fatalf("Secret = %q, %d, %v", got, updated, err)
		}
	})
	t.Run("a new secret past the most is refused, a replacement is not", func(t *testing.T) {
		const carol = "did:key:z6MkCarol"
		for i := range 3 {
			wantCode(t, s.PutSecret(ctx, carol, fmt.Sprintf("K%d", i), []byte("v"), 1, 3), "")
		}
		wantCode(t, s.PutSecret(ctx, carol, "K3", []byte("v"), 1, 3), venue.ECONFLICT)
		wantCode(t, s.PutSecret(ctx, carol, "K1", []byte("v2"), 2, 3), "")
		wantCode(t, s.PutSecret(ctx, carol, "K3", []byte("v"), 1, 0), "") // no bound
		if names, _ := s.SecretNames(ctx, carol); len(names) != 4 {
			t.Fatalf("names %q", names)
		}
	})
	t.Run("racing new secrets with room for one store one", func(t *testing.T) {
		const dave = "did:key:z6MkDave"
		for i := range 4 {
			wantCode(t, s.PutSecret(ctx, dave, fmt.Sprintf("K%d", i), []byte("v"), 1, 0), "")
		}
		var stored atomic.Int64
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				switch err := s.PutSecret(ctx, dave, fmt.Sprintf("RACER_%d", i), []byte("v"), 1, 5); venue.ErrorCode(err) {
				case "":
					stored.Add(1)
				case venue.ECONFLICT:
				default:
					t.Errorf("racer %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		if names, _ := s.SecretNames(ctx, dave); stored.Load() != 1 || len(names) != 5 {
			t.Fatalf("%d of 8 racers stored, %d names kept; want 1 and 5", stored.Load(), len(names))
		}
	})
	t.Run("other owner's delete is not found and keeps it", func(t *testing.T) {
		wantCode(t, s.DeleteSecret(ctx, bob, "b"), venue.ENOTFOUND)
		if _, _, err := s.Secret(ctx, alice, "b"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("delete removes only the owner's secret", func(t *testing.T) {
		wantCode(t, s.DeleteSecret(ctx, alice, "a"), "")
		_, _, err := s.Secret(ctx, alice, "a")
		wantCode(t, err, venue.ENOTFOUND)
		if got, _, err := s.Secret(ctx, bob, "a"); err != nil || string(got) != "bob-a" {
			t.Fatalf("bob's secret after alice's delete = %q, %v", got, err)
		}
		wantCode(t, s.DeleteSecret(ctx, alice, "a"), venue.ENOTFOUND)
	})
}
