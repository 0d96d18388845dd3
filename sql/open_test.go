package sql

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
		{"user=alice password=pw7 sslmode=disable", true},
		{"sslmode=disable user=alice", true},
		{"my-user=notes.db", false},
		{"/var/lib/venue/venue.db", false},
		{"venue.db", false},
		{"file:venue.db?_pragma=cache_size(-8000)", false},
	} {
		t.Run(tc.dsn, func(t *testing.T) {
			if got := IsPostgresDSN(tc.dsn); got != tc.postgres {
				t.Fatalf("IsPostgresDSN = %v, want %v", got, tc.postgres)
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

// TestOpen_OneVenuePerSQLiteFile: a second venue process on a durable
// SQLite file would fail the first one's running jobs as left over from a
// crash; the store refuses it until the first closes.
func TestOpen_OneVenuePerSQLiteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	first, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), path, Options{})
	if want := path + " is in use by another venue process"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second open: %v, want an error saying %q", err, want)
	}
	// Other names of the same file: a lock on the name would miss them.
	link, hard := filepath.Join(filepath.Dir(path), "link.db"), filepath.Join(filepath.Dir(path), "hard.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{link, hard} {
		if _, err := Open(context.Background(), other, Options{}); err == nil || !strings.Contains(err.Error(), "in use by another venue process") {
			t.Fatalf("open through %s: %v", other, err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("open after the first closed: %v", err)
	}
	again.Close()
}

// TestOpen_UnknownScheme: a mistyped postgres:// is refused, not taken for
// the name of a new SQLite file.
func TestOpen_UnknownScheme(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, dsn := range []string{"postgress://u@h/db", "mysql://x"} {
		_, err := Open(context.Background(), dsn, Options{})
		if err == nil || !strings.Contains(err.Error(), "unknown store scheme") {
			t.Fatalf("Open(%q): %v", dsn, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused store left %d files behind", len(entries))
	}
}

// TestOpen_MistypedPostgresURL: a PostgreSQL URL missing a slash, or in
// capitals, is refused without quoting it (it holds a password), not taken
// for the path of a new SQLite file.
func TestOpen_MistypedPostgresURL(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, dsn := range []string{"postgres:/u:s3cret@h/db", "postgresql:u:s3cret@h/db", "Postgres://u:s3cret@h/db", "POSTGRESQL://u:s3cret@h/db"} {
		_, err := Open(context.Background(), dsn, Options{})
		if err == nil || !strings.Contains(err.Error(), "postgres://user:password@host:port/dbname") || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("Open(%q): %v", dsn, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused store left %d files behind", len(entries))
	}
}

// TestOpen_DSNErrorHidesPassword: a DSN that does not parse is refused
// without quoting its password, since the error is logged: net/url quotes
// the URL and the part it stopped at, lib/pq the words it cannot read.
func TestOpen_DSNErrorHidesPassword(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u:pa?sSECRET@127.0.0.1:1/db",
		"postgres://u:SECRET@[::1/db",
		"postgres://u:SE%zzCRET@h/db",
		"postgres://u:SE/CRET@h/db",
		"host=h password=SE CRET",
		"host=h password='SECRET",
		"host=h password=SECRET\\",
		"host=h password=SE CRET port=CRET",
	} {
		_, err := Open(t.Context(), dsn, Options{})
		if err == nil {
			t.Fatalf("Open(%q) succeeded", dsn)
		}
		if msg := err.Error(); strings.Contains(msg, "SECRET") || strings.Contains(msg, "sSE") || strings.Contains(msg, "CRET") {
			t.Errorf("Open(%q) = %q, quotes the password", dsn, msg)
		}
	}
}

// TestOpen_DSNErrorKeepsOtherWords: what lib/pq quotes of settings other
// than the password still tells the operator what to fix.
func TestOpen_DSNErrorKeepsOtherWords(t *testing.T) {
	_, err := Open(t.Context(), "host=h port=abc password=SECRET", Options{})
	if err == nil || !strings.Contains(err.Error(), `"abc"`) || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("Open = %v, want the bad port quoted and no password", err)
	}
}
