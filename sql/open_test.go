package sql

import (
	"net/url"
	"path/filepath"
	"testing"
)

func TestOpen_DSNKinds(t *testing.T) {
	for _, tc := range []struct {
		dsn      string
		postgres bool
	}{
		{"postgres://u@h/db?sslmode=disable", true},
		{"postgresql://h/db", true},
		{"host=/run/postgresql dbname=venue", true},
		{"dbname=venue", true},
		{"/var/lib/venue/venue.db", false},
		{"venue.db", false},
		{"file:venue.db?_pragma=cache_size(-8000)", false},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			if got := isPostgresDSN(tc.dsn); got != tc.postgres {
				t.Fatalf("isPostgresDSN = %v, want %v", got, tc.postgres)
			}
		})
	}
}

func TestOpen_SQLitePath(t *testing.T) {
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	for _, tc := range []struct {
		name, dsn, path string
		extra           url.Values
	}{
		{"plain path", "/a/b.db", "/a/b.db", url.Values{}},
		{"relative path is made absolute", "b.db", abs("b.db"), url.Values{}},
		{"file URI with parameters", "file:/a/b%20c.db?_pragma=cache_size(-8000)", "/a/b c.db",
			url.Values{"_pragma": {"cache_size(-8000)"}}},
		{"file URI with empty authority", "file:///a/b.db", "/a/b.db", url.Values{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, extra, err := sqlitePath(tc.dsn)
			if err != nil || path != tc.path || extra.Encode() != tc.extra.Encode() {
				t.Fatalf("sqlitePath = %q, %v, %v; want %q, %v", path, extra, err, tc.path, tc.extra)
			}
		})
	}
}
