package sql

import (
	"testing"

	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql/sqltest"
	"github.com/gridvenue/venue/sql/storetest"
)

// mustOpen opens the store at dsn and closes it when the test ends.
func mustOpen(tb testing.TB, dsn string, opts Options) *Store {
	tb.Helper()
	s, err := Open(tb.Context(), dsn, opts)
	if err != nil {
		tb.Fatalf("Open(%q): %v", dsn, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

// suiteOptions are those the store suite needs (storetest.Run).
var suiteOptions = Options{MaxUserValuesBytes: storetest.MaxUserValuesBytes, MaxUserAssetsBytes: storetest.MaxUserAssetsBytes}

// opener opens a fresh, empty store of one kind.
type opener struct {
	name string
	open func(tb testing.TB) *Store
}

// openers returns every kind of store this machine can test: the SQLite
// ones always, Postgres when VENUE_TEST_POSTGRES is set.
func openers(tb testing.TB) []opener {
	ops := []opener{
		{"sqlite-temp", func(tb testing.TB) *Store { return mustOpen(tb, "", suiteOptions) }},
		{"sqlite-file", func(tb testing.TB) *Store { return mustOpen(tb, tb.TempDir()+"/venue.db", suiteOptions) }},
	}
	if dsn := sqltest.PostgresDSN(tb, false); dsn != "" {
		ops = append(ops, opener{"postgres", func(tb testing.TB) *Store {
			return mustOpen(tb, freshSchema(tb, dsn), suiteOptions)
		}})
	}
	return ops
}

// asStore adapts an opener to storetest.Run.
func asStore(o opener) func(t *testing.T) runtime.Store {
	return func(t *testing.T) runtime.Store { return o.open(t) }
}
