package storetest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

func testTokenIDs(t *testing.T, s runtime.Store) {
	ctx := t.Context()
	use := func(t *testing.T, key string, expires, now int64, want bool) {
		t.Helper()
		if fresh, err := s.UseTokenID(ctx, []byte(key), expires, now); err != nil || fresh != want {
			t.Fatalf("UseTokenID(%s, %d, %d) = %v, %v; want %v", key, expires, now, fresh, err, want)
		}
	}
	t.Run("first use is new, the second is not", func(t *testing.T) {
		use(t, "a", 2000, 1000, true)
		use(t, "a", 2000, 1500, false)
		use(t, "a", 9000, 1999, false)
	})
	t.Run("another key is new", func(t *testing.T) {
		use(t, "b", 2000, 1000, true)
	})
	t.Run("an expired record is forgotten", func(t *testing.T) {
		use(t, "a", 5000, 2001, true)
		use(t, "a", 5000, 3000, false)
	})
	t.Run("keys are compared byte for byte", func(t *testing.T) {
		use(t, "c\x00\xff", 2000, 1000, true)
		use(t, "c\x00\xfe", 2000, 1000, true)
		use(t, "C\x00\xff", 2000, 1000, true)
	})
	t.Run("live keys are found among others until they expire", func(t *testing.T) {
		use(t, "live", 2000, 1000, true)
		for _, tc := range []struct {
			name string
			keys []string
			now  int64
			want bool
		}{
			{"none", nil, 1000, false},
			{"the live one", []string{"live"}, 1000, true},
			{"among unknown ones", []string{"x", "y", "live", "z"}, 1999, true},
			{"unknown ones only", []string{"x", "y"}, 1000, false},
			{"once it expired", []string{"live"}, 2000, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				keys := make([][]byte, len(tc.keys))
				for i, k := range tc.keys {
					keys[i] = []byte(k)
				}
				if live, err := s.TokenIDsLive(ctx, keys, tc.now); err != nil || live != tc.want {
					t.Fatalf("TokenIDsLive(%q, %d) = %v, %v; want %v", tc.keys, tc.now, live, err, tc.want)
				}
			})
		}
	})
	t.Run("of racing uses exactly one is new", func(t *testing.T) {
		var wg sync.WaitGroup
		var fresh atomic.Int32
		for range 10 {
			wg.Go(func() {
				ok, err := s.UseTokenID(ctx, []byte("raced"), 2000, 1000)
				if err != nil {
					t.Error(err)
				}
				if ok {
					fresh.Add(1)
				}
			})
		}
		wg.Wait()
		if fresh.Load() != 1 {
			t.Fatalf("%d racing uses were new", fresh.Load())
		}
	})
}
