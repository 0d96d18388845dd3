package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/jmoiron/sqlx"
)

// Meta returns the value under key. Returns ENOTFOUND if there is none.
func (s *Store) Meta(ctx context.Context, key string) ([]byte, error) {
	var v []byte
	err := s.r.QueryRowContext(ctx, s.d.q("SELECT value FROM meta WHERE key = ?"), key).Scan(&v)
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, venue.Errorf(venue.ENOTFOUND, "Meta key not found: %s", key)
	}
	if err != nil {
		return nil, wrap(ctx, err, "load meta %s", key)
	}
	return v, nil
}

// PutMetaIfAbsent stores value under key unless one is stored, and returns
// the stored value. Of two nodes racing, the second's insert waits on the
// first's key and then does nothing, and both read the first's value.
func (s *Store) PutMetaIfAbsent(ctx context.Context, key string, value []byte) ([]byte, error) {
	var stored []byte
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		q := s.d.q("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING")
		if _, err := tx.ExecContext(ctx, q, key, value); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.d.q("SELECT value FROM meta WHERE key = ?"), key).Scan(&stored)
	})
	if err != nil {
		return nil, wrap(ctx, err, "put meta %s", key)
	}
	return stored, nil
}

// DeleteMeta removes the value under key, if any.
func (s *Store) DeleteMeta(ctx context.Context, key string) error {
	_, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM meta WHERE key = ?"), key)
	return wrap(ctx, err, "delete meta %s", key)
}
