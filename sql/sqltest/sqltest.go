// Package sqltest gives tests the stores to run on: the embedded SQLite
// store always, and Postgres when VENUE_TEST_POSTGRES holds a DSN, each
// test in a fresh schema. Under CI (CI set) a missing Postgres fails the
// test instead of skipping it.
package sqltest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	dbsql "database/sql"

	_ "github.com/lib/pq" // the "postgres" driver
)

// EnvPostgres names the environment variable holding the Postgres DSN.
const EnvPostgres = "VENUE_TEST_POSTGRES"

// Store is a store to run a test on: a name for subtests and the DSN to
// open ("" is a temporary SQLite store).
type Store struct {
	Name string
	DSN  string
}

// Stores returns SQLite, and Postgres in a fresh schema if configured.
func Stores(tb testing.TB) []Store {
	tb.Helper()
	out := []Store{{Name: "sqlite"}}
	if dsn := PostgresDSN(tb, false); dsn != "" {
		out = append(out, Store{Name: "postgres", DSN: FreshSchema(tb, dsn)})
	}
	return out
}

// PostgresDSN returns the configured DSN. Without one it skips the test if
// required, fails it under CI, and otherwise returns "".
func PostgresDSN(tb testing.TB, required bool) string {
	tb.Helper()
	dsn := os.Getenv(EnvPostgres)
	switch {
	case dsn != "":
	case os.Getenv("CI") != "":
		tb.Fatalf("%s is not set: CI must run the Postgres store for real", EnvPostgres)
	case required:
		tb.Skipf("%s not set", EnvPostgres)
	}
	return dsn
}

// FreshSchema creates an empty schema, dropped when the test ends, and
// returns dsn with search_path set to it (lib/pq passes parameters it does
// not know to the server as run-time settings).
func FreshSchema(tb testing.TB, dsn string) string {
	tb.Helper()
	db, err := dbsql.Open("postgres", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(context.Background(), "CREATE SCHEMA "+name); err != nil {
		db.Close()
		tb.Fatalf("create schema (is Postgres at %s running?): %v", redact(dsn), err)
	}
	tb.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), "DROP SCHEMA "+name+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", name, err)
		}
		db.Close()
	})
	return WithSearchPath(dsn, name)
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(dsn, schema string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		return u.Redacted()
	}
	return "the configured DSN"
}
