package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"

	venue "github.com/gridvenue/venue"
	"github.com/jmoiron/sqlx"
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
func wrap(err error, format string, args ...any) error {
	var ve *venue.Error
	if err == nil || errors.As(err, &ve) {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
