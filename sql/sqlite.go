package sql

import (
	"context"
	"net/url"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers driver "sqlite"
)

// openSQLite opens two pools over the file at path: one writer connection,
// so writers queue in Go rather than spin on SQLITE_BUSY and every write
// transaction can take the lock up front (BEGIN IMMEDIATE), and a few
// read-only connections that WAL lets run beside the writer.
func (s *Store) openSQLite(ctx context.Context, path string, extra url.Values, durable bool) error {
	s.d = sqliteDialect()
	w, err := sqlx.Open("sqlite", sqliteDSN(path, extra, durable, true))
	if err != nil {
		return err
	}
	s.w = w
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	// The writer connects first: it creates the file and switches it to WAL
	// before any reader opens it.
	if err := w.PingContext(ctx); err != nil {
		return err
	}
	r, err := sqlx.Open("sqlite", sqliteDSN(path, extra, durable, false))
	if err != nil {
		return err
	}
	s.r = r
	n := max(4, goruntime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	return nil
}

// sqliteDSN builds a modernc DSN whose _pragma parameters run on every
// connection the pool opens, not just the first.
func sqliteDSN(path string, extra url.Values, durable, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	if durable {
		// In WAL mode only FULL syncs the log at each commit; NORMAL could
		// lose the last commits on power loss, and a job id must never be
		// acknowledged before its record is durable.
		q.Add("_pragma", "synchronous(FULL)")
	} else {
		// The ephemeral store is deleted when the process exits, so nothing
		// it holds outlives a crash anyway: syncing would buy nothing.
		q.Add("_pragma", "synchronous(OFF)")
	}
	if writer {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	for k, vs := range extra {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// sqlitePath reads a file DSN: a plain path, or a "file:" URI whose query
// parameters are passed on to the driver.
func sqlitePath(dsn string) (string, url.Values, error) {
	path, query := dsn, ""
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		path, query, _ = strings.Cut(rest, "?")
		if p, ok := strings.CutPrefix(path, "//"); ok {
			path = p // file:///abs/path
		}
		var err error
		if path, err = url.PathUnescape(path); err != nil {
			return "", nil, err
		}
	}
	extra, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, err
	}
	abs, err := filepath.Abs(path)
	return abs, extra, err
}
