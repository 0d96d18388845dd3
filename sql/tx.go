package sql

import (
	"context"
	dbsql "database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	venue "github.com/gridvenue/venue"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// inTx runs fn in a write transaction and commits if it returns nil. On
// SQLite the writer pool begins IMMEDIATE, so the transaction holds the write
// lock from its first statement and never fails to upgrade a read lock.
func (s *Store) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.w.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return rollback(tx, err)
	}
	return tx.Commit()
}

// inReadTx runs fn in a read-only transaction, so that queries that belong
// together (a page and its total) see one snapshot.
func (s *Store) inReadTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	opts := &dbsql.TxOptions{ReadOnly: true}
	if s.d.postgres() {
		opts.Isolation = dbsql.LevelRepeatableRead
	}
	tx, err := s.r.BeginTxx(ctx, opts)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return rollback(tx, err)
	}
	return tx.Commit()
}

// rollback ends tx after err and returns err, joined with the rollback's own
// failure if it had one. A rollback database/sql already did because the
// context ended is no failure.
func rollback(tx *sqlx.Tx, err error) error {
	if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, dbsql.ErrTxDone) {
		return errors.Join(err, rerr)
	}
	return err
}

// wrap adds context to a plumbing error. A *venue.Error passes unchanged: its
// message is for the caller, who branches on its code.
//
// A store that cannot be reached (a refused or dropped connection, a server
// shutting down or out of connections) is EUNAVAILABLE, which the doors
// answer with 503 and Retry-After: a health check or a load balancer must
// see "try later", not a 500, and the caller never sees the store's own
// words (an address, a driver's message), which stay in the chain for the
// operator's log.
//
// An error met once ctx has ended is marked as ctx's own (a client that
// left, a venue shutting down), which the doors do not answer as their
// failure: the driver's words for it vary (database/sql's ErrTxDone for a
// commit its watcher had rolled back, SQLite's "interrupted", PostgreSQL's
// query_canceled) and none of them wraps the context's error.
func wrap(ctx context.Context, err error, format string, args ...any) error {
	var ve *venue.Error
	if err == nil || errors.As(err, &ve) {
		return err
	}
	err = fmt.Errorf(format+": %w", append(args, err)...)
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	if unreachable(err) {
		return fmt.Errorf("%w: %w", venue.Errorf(venue.EUNAVAILABLE, "The venue's store cannot be reached; try again shortly"), err)
	}
	if diskFull(err) {
		return fmt.Errorf("%w: %w", errDiskFull, err)
	}
	return err
}

// errDiskFull words a write the store refused for want of disk space. It
// is EUNAVAILABLE, as a store away is: the doors answer 503 with
// Retry-After rather than an unexplained 500, and the job writer keeps
// the rows of jobs already handed out until the store takes them, rather
// than giving them up after a few tries while this node answers their
// end (the next start then failed jobs that had completed).
var errDiskFull = venue.Errorf(venue.EUNAVAILABLE, "The venue's store is out of disk space (database or disk is full), so nothing new can be stored; try again once its operator has freed space")

// diskFull reports whether err says the store's disk (or SQLite's
// max_page_count) is full: SQLITE_FULL, PostgreSQL's disk_full (53100),
// or ENOSPC.
func diskFull(err error) bool {
	var se *sqlite.Error
	var pe *pq.Error
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return true
	case errors.As(err, &pe):
		return pe.Code == "53100"
	case errors.As(err, &se):
		return se.Code()&0xff == sqlite3.SQLITE_FULL // and its extended codes
	}
	return false
}

// unreachable reports whether err says the store could not be reached,
// rather than that a statement failed. A bare io.EOF is a connection
// closed before PostgreSQL answered, as a proxy in front of it (PgBouncer,
// HAProxy, a cloud SQL proxy) does when the server behind is down: lib/pq
// returns it from the start-up handshake of a new connection. A query's
// end of rows never reaches here as an error (database/sql takes it).
func unreachable(err error) bool {
	var op *net.OpError
	var pe *pq.Error
	switch {
	case errors.As(err, &op), errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return true
	case errors.As(err, &pe):
		// 08: connection exception; 57P01-03: the server is shutting down
		// or starting; 53300: it has no connection left.
		return pe.Code.Class() == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code == "53300"
	}
	return false
}
