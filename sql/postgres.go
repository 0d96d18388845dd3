package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// IsPostgresDSN reports whether dsn names a Postgres database: a
// postgres:// or postgresql:// URL, or a key=value DSN with one of libpq's
// connection keywords (user=alice password=... is one, though it names no
// host). Anything else is a SQLite path; the venue logs a store by this
// rule too, hiding a Postgres password.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") || libpqKeyword.MatchString(dsn)
}

var libpqKeyword = regexp.MustCompile(`(?:^|\s)(?:host|hostaddr|port|dbname|user|password|passfile|sslmode|sslrootcert|sslcert|sslkey|connect_timeout|application_name|options|service|target_session_attrs)\s*=`)

// openPostgres opens one pool for reads and writes. The DSN is used as given:
// sslmode and search_path are the operator's to set.
func (s *Store) openPostgres(ctx context.Context, dsn string) error {
	s.d = postgresDialect()
	s.dsn = dsn
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return dsnError(err, dsn)
	}
	// Binary parameters send bytea (ids, records, content) as raw bytes
	// instead of doubling them into hex text, and let a query that is not
	// prepared run in one round trip instead of two.
	cfg.BinaryParameters = true
	conn, err := pq.NewConnectorConfig(cfg)
	if err != nil {
		return err
	}
	db := sqlx.NewDb(dbsql.OpenDB(conn), "postgres")
	s.w, s.r = db, db
	// Several nodes share one server (100 connections by default), so each
	// keeps a modest pool.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	db.SetConnMaxIdleTime(5 * time.Minute)
	var schema dbsql.NullString
	if err := s.firstQuery(ctx, func() error { return db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema) }); err != nil {
		return err
	}
	if !schema.Valid {
		return errors.New("the search_path names no schema that exists: create it, or fix the DSN")
	}
	s.channel = channelFor(schema.String)
	return nil
}

// firstQuery runs q, trying again every second for up to
// Options.ConnectWait while the server cannot be reached: a venue started
// beside its PostgreSQL (compose, a restart of both) would otherwise exit
// at once. A refusal that is no outage (a wrong password, no such
// database) fails at once.
func (s *Store) firstQuery(ctx context.Context, q func() error) error {
	deadline := time.Now().Add(s.wait)
	for tries := 0; ; tries++ {
		err := q()
		if err == nil || !unreachable(err) || time.Now().After(deadline) {
			if err != nil && tries > 0 {
				return fmt.Errorf("after waiting %s: %w", s.wait, err)
			}
			return err
		}
		if tries == 0 {
			s.log.Info("waiting for PostgreSQL to accept connections", "for", s.wait, "err", err)
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return err
		}
	}
}

// dsnError keeps the password of a DSN that does not parse out of the
// error, which is logged. net/url quotes the whole URL, and its reasons
// the part they stopped at, which can be the password's (one holding '?'
// or '/' ends the user info early); lib/pq quotes the words of a key=value
// DSN it cannot read, which can be the password's after a space.
func dsnError(err error, dsn string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return errors.New("the store's postgres:// URL does not parse; characters such as @ : / ? # % and spaces " +
			"in its user name or password must be percent-encoded (%40 %3A %2F %3F %23 %25 %20)")
	}
	i := strings.Index(asciiLower(dsn), "password")
	if i < 0 {
		return err
	}
	tail := dsn[i:]
	return errors.New(quoted.ReplaceAllStringFunc(err.Error(), func(q string) string {
		if s, uerr := strconv.Unquote(q); uerr == nil && s != "" && !strings.Contains(tail, s) {
			return q
		}
		return `"(hidden)"`
	}))
}

// asciiLower lowers ASCII letters only, so indices stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// quoted finds the Go-quoted strings of an error message.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
