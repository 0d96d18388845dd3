package sql

import (
	"context"
	dbsql "database/sql"
	"strings"

	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// ValueRows returns the owner's rows related to path: the row at path, a row
// at any ancestor of path, and every row below it, in path order.
func (s *Store) ValueRows(ctx context.Context, owner, path string) ([]runtime.ValueRow, error) {
	q, args := s.relatedValues(owner, path, "")
	st, err := s.prepared(ctx, q)
	if err != nil {
		return nil, wrap(err, "load values at %s", path)
	}
	rows, err := scanValues(st.QueryContext(ctx, args...))
	return rows, wrap(err, "load values at %s", path)
}

// UpdateValues runs fn over the rows related to path in a write transaction,
// then deletes the paths and stores the rows fn returns. If fn fails nothing
// changes and its error is returned.
//
// On SQLite the one writer connection keeps every other writer out. On
// Postgres, FOR UPDATE locks the related rows that exist, and an advisory
// lock on owner and namespace covers those that do not exist yet: every path
// related to path lies in its namespace, so two writers of related paths
// always contend for the same lock.
func (s *Store) UpdateValues(ctx context.Context, owner, path string,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if s.d.postgres() {
			ns, _, _ := strings.Cut(path, "/")
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", owner+"\n"+ns); err != nil {
				return err
			}
		}
		q, args := s.relatedValues(owner, path, s.d.lockRows)
		rows, err := scanValues(tx.QueryContext(ctx, q, args...))
		if err != nil {
			return err
		}
		put, del, err := fn(rows)
		if err != nil {
			return err
		}
		return s.storeValues(ctx, tx, owner, put, del)
	})
	return wrap(err, "update values at %s", path)
}

// relatedValues returns the query of the rows related to path. Rows below
// path are the range (path/, path0): '0' follows '/' in ASCII, so the range
// holds exactly the paths that continue path with a '/', and the primary key
// serves it. Ancestors and path itself are looked up by equality.
func (s *Store) relatedValues(owner, path, lock string) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT path, value FROM lattice_values WHERE owner = ? AND (path IN (?")
	args := []any{owner, path}
	for i := range len(path) {
		if path[i] == '/' {
			b.WriteString(",?")
			args = append(args, path[:i])
		}
	}
	b.WriteString(") OR (path > ? AND path < ?)) ORDER BY path")
	b.WriteString(lock)
	return s.d.q(b.String()), append(args, path+"/", path+"0")
}

func (s *Store) storeValues(ctx context.Context, tx *sqlx.Tx, owner string, put []runtime.ValueRow, del []string) error {
	for _, p := range del {
		if _, err := tx.ExecContext(ctx, s.d.q("DELETE FROM lattice_values WHERE owner = ? AND path = ?"), owner, p); err != nil {
			return err
		}
	}
	q := s.d.q(`INSERT INTO lattice_values (owner, path, value) VALUES (?, ?, ?)
		ON CONFLICT (owner, path) DO UPDATE SET value = excluded.value`)
	for _, r := range put {
		if _, err := tx.ExecContext(ctx, q, owner, r.Path, r.Value); err != nil {
			return err
		}
	}
	return nil
}

func scanValues(rows *dbsql.Rows, err error) ([]runtime.ValueRow, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runtime.ValueRow
	for rows.Next() {
		var r runtime.ValueRow
		if err := rows.Scan(&r.Path, &r.Value); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
