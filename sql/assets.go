package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/jmoiron/sqlx"
)

// PutAsset stores meta under id for owner unless id is already stored, and
// reports whether it was new. A stored asset is never replaced: its id is
// the hash of its metadata. New metadata counts to its owner's assets;
// past MaxUserAssetsBytes it is refused with ETOOLARGE and not stored.
func (s *Store) PutAsset(ctx context.Context, id venue.AssetID, owner string, meta []byte, created int64) (bool, error) {
	isNew := false
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		q := s.d.q("INSERT INTO assets (id, owner, meta, created) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
		res, err := tx.ExecContext(ctx, q, id[:], owner, meta, created)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		isNew = true
		return s.chargeAssets(ctx, tx, owner, int64(len(meta)))
	})
	if err != nil {
		return false, wrap(ctx, err, "put asset %s", id)
	}
	return isNew, nil
}

// chargeAssets adds n bytes to what owner stores as assets, in tx, and
// refuses the write that takes owner past the bound. On Postgres the
// upsert locks owner's row until tx ends, so two uploads of one owner
// add up one after the other and cannot pass the bound together.
func (s *Store) chargeAssets(ctx context.Context, tx *sqlx.Tx, owner string, n int64) error {
	var after int64
	q := s.d.q("INSERT INTO assets_usage (owner, bytes) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET bytes = assets_usage.bytes + excluded.bytes RETURNING bytes")
	if err := tx.QueryRowContext(ctx, q, owner, n).Scan(&after); err != nil || s.maxAssets <= 0 || after <= s.maxAssets {
		return err
	}
	return venue.Errorf(venue.ETOOLARGE, "the assets you store (metadata and content) would be %d bytes, over the %d bytes one user may store: ask the venue's operator to raise maxUserAssetsBytes", after, s.maxAssets)
}

// assetsUsage returns the bytes of assets owner stores.
func (s *Store) assetsUsage(ctx context.Context, owner string) (int64, error) {
	var n int64
	err := s.r.QueryRowContext(ctx, s.d.q("SELECT bytes FROM assets_usage WHERE owner = ?"), owner).Scan(&n)
	if errors.Is(err, dbsql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// Asset returns the metadata as registered. Returns ENOTFOUND if there is none.
func (s *Store) Asset(ctx context.Context, id venue.AssetID) ([]byte, error) {
	var meta []byte
	err := s.r.QueryRowContext(ctx, s.d.q("SELECT meta FROM assets WHERE id = ?"), id[:]).Scan(&meta)
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s", id)
	}
	if err != nil {
		return nil, wrap(ctx, err, "load asset %s", id)
	}
	return meta, nil
}

// ListAssets returns a page of asset ids in id order and the total count,
// both from one snapshot.
func (s *Store) ListAssets(ctx context.Context, offset, limit int) ([]venue.AssetID, int, error) {
	var (
		ids   []venue.AssetID
		total int
	)
	offset = max(offset, 0)
	err := s.inReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &total, "SELECT count(*) FROM assets"); err != nil {
			return err
		}
		if offset >= total || limit == 0 {
			return nil
		}
		var err error
		ids, err = listAssets(ctx, tx, s.d.q("SELECT id FROM assets ORDER BY id LIMIT ? OFFSET ?"), s.d.limit(limit), offset)
		return err
	})
	if err != nil {
		return nil, 0, wrap(ctx, err, "list assets")
	}
	return ids, total, nil
}

func listAssets(ctx context.Context, tx *sqlx.Tx, q string, args ...any) ([]venue.AssetID, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []venue.AssetID
	for rows.Next() {
		var raw dbsql.RawBytes
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var id venue.AssetID
		copy(id[:], raw)
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
