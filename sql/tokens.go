package sql

import (
	"context"
	"strings"
)

// tokenSweepEvery is how often (ms) UseTokenID also deletes expired
// records: they are only ever read by key, so they may linger a while.
const tokenSweepEvery = 60_000

// UseTokenID records key until expires (ms) and reports whether it was new.
// One statement decides it: a live record makes the upsert change nothing,
// so of two nodes racing with one key only one sees a row affected.
func (s *Store) UseTokenID(ctx context.Context, key []byte, expires, now int64) (bool, error) {
	q := s.d.q(`INSERT INTO token_ids (key, expires) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET expires = excluded.expires WHERE token_ids.expires <= ?`)
	res, err := s.w.ExecContext(ctx, q, key, expires, now)
	if err != nil {
		return false, wrap(ctx, err, "record one-time token")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap(ctx, err, "record one-time token")
	}
	if last := s.tokenSweep.Load(); now-last >= tokenSweepEvery && s.tokenSweep.CompareAndSwap(last, now) {
		if _, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM token_ids WHERE expires <= ?"), now); err != nil {
			return false, wrap(ctx, err, "forget expired one-time tokens")
		}
	}
	return n == 1, nil
}

// TokenIDsLive reports whether any of keys is recorded with an expiry after
// now, in one lookup of the key.
func (s *Store) TokenIDsLive(ctx context.Context, keys [][]byte, now int64) (bool, error) {
	if len(keys) == 0 {
		return false, nil
	}
	args := make([]any, 0, len(keys)+1)
	for _, k := range keys {
		args = append(args, k)
	}
	q := s.d.q("SELECT COUNT(*) FROM token_ids WHERE key IN (?" + strings.Repeat(", ?", len(keys)-1) + ") AND expires > ?")
	st, err := s.prepared(ctx, q)
	if err != nil {
		return false, wrap(ctx, err, "look up revoked tokens")
	}
	var n int
	if err := st.QueryRowContext(ctx, append(args, now)...).Scan(&n); err != nil {
		return false, wrap(ctx, err, "look up revoked tokens")
	}
	return n > 0, nil
}
