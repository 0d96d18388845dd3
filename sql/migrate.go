package sql

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// migrationFiles holds one directory per dialect of files named
// NNNN_what.sql, applied in order. A file, once released, never changes:
// a change to the schema is a new file.
//
//go:embed migrations
var migrationFiles embed.FS

// migrateLock is the advisory lock (two-int key space, apart from the value
// locks) that lets one of several nodes starting at once migrate while the
// others wait and then find the schema current.
const migrateLock = 0x76656e75 // "venu"

type migration struct {
	version int
	name    string
	sql     string
}

// migrate applies, in one transaction, the migrations newer than the
// version recorded in schema_version.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations(s.d.name)
	if err != nil {
		return err
	}
	cur, applied := 0, 0
	err = s.inTx(ctx, func(tx *sqlx.Tx) error {
		if s.d.postgres() {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1, 0)", migrateLock); err != nil {
				return fmt.Errorf("lock schema: %w", err)
			}
		}
		if err := s.refuseForeign(ctx, tx); err != nil {
			return err
		}
		const create = `CREATE TABLE IF NOT EXISTS schema_version (
			version INTEGER PRIMARY KEY, applied BIGINT NOT NULL)`
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return fmt.Errorf("create schema_version: %w", err)
		}
		if err := tx.GetContext(ctx, &cur, "SELECT COALESCE(MAX(version), 0) FROM schema_version"); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if last := ms[len(ms)-1].version; cur > last {
			return fmt.Errorf("schema version %d is newer than this venue knows (%d): a newer venue upgraded this store; run that version (or a newer one) on it, since this one cannot read it", cur, last)
		}
		for _, m := range ms {
			if m.version > cur {
				if err := s.apply(ctx, tx, m); err != nil {
					return err
				}
				applied = m.version
			}
		}
		return nil
	})
	if err == nil && applied > 0 && cur > 0 {
		// An upgrade: the operator sees it happen, and from which version
		// (a new store's first schema is no news).
		s.log.Info("store schema upgraded", "from", cur, "to", applied)
	}
	return err
}

// refuseForeign refuses a SQLite database that holds tables but no
// schema_version: another program's, which the venue would fill with its
// own tables beside the others. (A PostgreSQL database is often shared, so
// the venue keeps to its tables there.)
func (s *Store) refuseForeign(ctx context.Context, tx *sqlx.Tx) error {
	if s.d.postgres() {
		return nil
	}
	var names []string
	err := tx.SelectContext(ctx, &names, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return fmt.Errorf("read the database's tables: %w", err)
	}
	if len(names) == 0 {
		return nil
	}
	if slices.Contains(names, "schema_version") {
		var cols int
		err := tx.GetContext(ctx, &cols, "SELECT count(*) FROM pragma_table_info('schema_version') WHERE name IN ('version', 'applied')")
		if err != nil {
			return err
		}
		var applied int
		if cols == 2 {
			if err := tx.GetContext(ctx, &applied, "SELECT count(*) FROM schema_version"); err != nil {
				return err
			}
		}
		// A venue records its first migration with its tables, so an empty
		// schema_version beside other tables is not one it made.
		if cols == 2 && (applied > 0 || len(names) == 1) {
			return nil
		}
		return errors.New("the database's schema_version table is not the venue's: give the venue a new file, or one it made")
	}
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return fmt.Errorf("the database holds tables that are not the venue's (%s): give the venue a new file, or one it made", strings.Join(names, ", "))
}

func (s *Store) apply(ctx context.Context, tx *sqlx.Tx, m migration) error {
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	q := s.d.q("INSERT INTO schema_version (version, applied) VALUES (?, ?)")
	if _, err := tx.ExecContext(ctx, q, m.version, time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("record migration %s: %w", m.name, err)
	}
	return nil
}

// migrations returns the dialect's migrations in version order.
func migrations(dialect string) ([]migration, error) {
	dir := "migrations/" + dialect
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("migration %s/%s: want NNNN_name.sql", dir, e.Name())
		}
		b, err := fs.ReadFile(migrationFiles, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no migrations for %s", dialect)
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	return ms, nil
}
