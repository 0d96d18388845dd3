package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// PutSecret creates or replaces the owner's sealed secret, refusing a new
// one past most (see roomForSecret).
func (s *Store) PutSecret(ctx context.Context, owner, name string, sealed []byte, updated int64, most int) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.roomForSecret(ctx, tx, owner, name, most); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.q(`INSERT INTO secrets (owner, name, sealed, updated) VALUES (?, ?, ?, ?)
			ON CONFLICT (owner, name) DO UPDATE SET sealed = excluded.sealed, updated = excluded.updated`), owner, name, sealed, updated)
		return err
	})
	return wrap(ctx, err, "put secret %s", name)
}

// roomForSecret returns ECONFLICT if storing name would give owner more
// than most secrets; replacing one is always allowed. On Postgres an
// advisory lock on the owner's secrets, taken before counting, keeps a
// put of another node from counting the same room: each node's own lock
// let every node pass the bound by one.
func (s *Store) roomForSecret(ctx context.Context, tx *sqlx.Tx, owner, name string, most int) error {
	if most <= 0 {
		return nil
	}
	if s.d.postgres() {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", owner+"\nsecrets"); err != nil {
			return err
		}
	}
	var n, has int
	err := tx.QueryRowContext(ctx, s.d.q("SELECT COUNT(*), COALESCE(SUM(CASE WHEN name = ? THEN 1 ELSE 0 END), 0) FROM secrets WHERE owner = ?"), name, owner).Scan(&n, &has)
	if err != nil || has > 0 || n < most {
		return err
	}
	return venue.Errorf(venue.ECONFLICT, "You keep %d secrets, the most a user may: delete some (DELETE /api/v1/secrets/{name}) before storing another", n)
}

// Secret returns the sealed value and when it was stored.
// Returns ENOTFOUND if the owner has no such secret.
func (s *Store) Secret(ctx context.Context, owner, name string) ([]byte, int64, error) {
	var (
		sealed  []byte
		updated int64
	)
	q := s.d.q("SELECT sealed, updated FROM secrets WHERE owner = ? AND name = ?")
	err := s.r.QueryRowContext(ctx, q, owner, name).Scan(&sealed, &updated)
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, 0, venue.Errorf(venue.ENOTFOUND, "Secret not found: %s", name)
	}
	if err != nil {
		return nil, 0, wrap(ctx, err, "load secret %s", name)
	}
	return sealed, updated, nil
}

// SecretNames returns the owner's secret names in bytewise order.
func (s *Store) SecretNames(ctx context.Context, owner string) ([]string, error) {
	names := []string{}
	err := s.r.SelectContext(ctx, &names, s.d.q("SELECT name FROM secrets WHERE owner = ? ORDER BY name"), owner)
	if err != nil {
		return nil, wrap(ctx, err, "list secrets")
	}
	return names, nil
}

// SecretTimes returns the owner's secret names in bytewise order, with
// when each was stored.
func (s *Store) SecretTimes(ctx context.Context, owner string) ([]runtime.SecretTime, error) {
	times := []runtime.SecretTime{}
	err := s.r.SelectContext(ctx, &times, s.d.q("SELECT name, updated FROM secrets WHERE owner = ? ORDER BY name"), owner)
	if err != nil {
		return nil, wrap(ctx, err, "list secrets")
	}
	return times, nil
}

// DeleteSecret removes the owner's secret.
// Returns ENOTFOUND if the owner has no such secret.
func (s *Store) DeleteSecret(ctx context.Context, owner, name string) error {
	res, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM secrets WHERE owner = ? AND name = ?"), owner, name)
	if err != nil {
		return wrap(ctx, err, "delete secret %s", name)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(ctx, err, "delete secret %s", name)
	}
	if n == 0 {
		return venue.Errorf(venue.ENOTFOUND, "Secret not found: %s", name)
	}
	return nil
}

// AnySecrets reports whether the store holds any secret, of any owner.
func (s *Store) AnySecrets(ctx context.Context) (bool, error) {
	var n int
	if err := s.r.GetContext(ctx, &n, "SELECT count(*) FROM (SELECT 1 FROM secrets LIMIT 1) AS one"); err != nil {
		return false, wrap(ctx, err, "look for secrets")
	}
	return n > 0, nil
}
