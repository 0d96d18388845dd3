package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// PutSecret creates or replaces the owner's sealed secret.
func (s *Store) PutSecret(ctx context.Context, owner, name string, sealed []byte, updated int64) error {
	q := s.d.q(`INSERT INTO secrets (owner, name, sealed, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (owner, name) DO UPDATE SET sealed = excluded.sealed, updated = excluded.updated`)
	_, err := s.w.ExecContext(ctx, q, owner, name, sealed, updated)
	return wrap(err, "put secret %s", name)
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
		return nil, 0, wrap(err, "load secret %s", name)
	}
	return sealed, updated, nil
}

// SecretNames returns the owner's secret names in bytewise order.
func (s *Store) SecretNames(ctx context.Context, owner string) ([]string, error) {
	names := []string{}
	err := s.r.SelectContext(ctx, &names, s.d.q("SELECT name FROM secrets WHERE owner = ? ORDER BY name"), owner)
	if err != nil {
		return nil, wrap(err, "list secrets")
	}
	return names, nil
}

// SecretTimes returns the owner's secret names in bytewise order, with
// when each was stored.
func (s *Store) SecretTimes(ctx context.Context, owner string) ([]runtime.SecretTime, error) {
	times := []runtime.SecretTime{}
	err := s.r.SelectContext(ctx, &times, s.d.q("SELECT name, updated FROM secrets WHERE owner = ? ORDER BY name"), owner)
	if err != nil {
		return nil, wrap(err, "list secrets")
	}
	return times, nil
}

// DeleteSecret removes the owner's secret.
// Returns ENOTFOUND if the owner has no such secret.
func (s *Store) DeleteSecret(ctx context.Context, owner, name string) error {
	res, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM secrets WHERE owner = ? AND name = ?"), owner, name)
	if err != nil {
		return wrap(err, "delete secret %s", name)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(err, "delete secret %s", name)
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
		return false, wrap(err, "look for secrets")
	}
	return n > 0, nil
}
