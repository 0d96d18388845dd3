package sql

import (
	"context"
)

// TouchUser records that did has used the venue, once. It runs on every
// request, so it looks before it writes: a known user costs a read, which
// needs no write lock on SQLite and no WAL on Postgres.
func (s *Store) TouchUser(ctx context.Context, did string, now int64) error {
	known, err := s.HasUser(ctx, did)
	if err != nil || known {
		return err
	}
	q := s.d.q("INSERT INTO users (did, created) VALUES (?, ?) ON CONFLICT (did) DO NOTHING")
	_, err = s.w.ExecContext(ctx, q, did, now)
	return wrap(ctx, err, "record user %s", did)
}

// HasUser reports whether did has used the venue.
func (s *Store) HasUser(ctx context.Context, did string) (bool, error) {
	var n int
	err := s.r.GetContext(ctx, &n, s.d.q("SELECT count(*) FROM users WHERE did = ?"), did)
	return n > 0, wrap(ctx, err, "look up user %s", did)
}

// CountUsers returns how many callers have used the venue.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := s.r.GetContext(ctx, &n, "SELECT count(*) FROM users")
	return n, wrap(ctx, err, "count users")
}
