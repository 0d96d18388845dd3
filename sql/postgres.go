package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// isPostgresDSN reports whether dsn names a Postgres database rather than a
// SQLite file.
func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") ||
		strings.Contains(dsn, "host=") || strings.Contains(dsn, "dbname=")
}

// openPostgres opens one pool for reads and writes. The DSN is used as given:
// sslmode and search_path are the operator's to set.
func (s *Store) openPostgres(ctx context.Context, dsn string) error {
	s.d = postgresDialect()
	s.dsn = dsn
	cfg, err := pq.NewConfig(dsn)
	if err != nil {
		return err
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
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	if !schema.Valid {
		return errors.New("the search_path names no schema that exists: create it, or fix the DSN")
	}
	s.channel = channelFor(schema.String)
	return nil
}
