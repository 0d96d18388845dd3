package sql

import (
	"context"
	dbsql "database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// ValueRows calls fn with each of the owner's rows related to path: the
// row at path, a row at any ancestor of path, and every row below it, in
// path order. With sizesOnly a row carries its Size and no Value, and the
// database reads no value. The rows stream from the index, unsorted by
// anything but it, so a caller that stops early (fn returning an error)
// has never made the database or itself hold more of a large subtree than
// it kept.
func (s *Store) ValueRows(ctx context.Context, owner, path string, sizesOnly bool, fn func(runtime.ValueRow) error) error {
	col := "value"
	if sizesOnly {
		col = "NULL"
	}
	q, args := s.relatedValues(owner, path, col, "")
	st, err := s.prepared(ctx, q)
	if err != nil {
		return wrap(err, "load values at %s", path)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return wrap(err, "load values at %s", path)
	}
	defer rows.Close()
	for rows.Next() {
		var r runtime.ValueRow
		if err := rows.Scan(&r.Path, &r.Value, &r.Size); err != nil {
			return wrap(err, "load values at %s", path)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return wrap(rows.Err(), "load values at %s", path)
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
	return s.updateValues(ctx, owner, path, "value", fn)
}

// UpdatePaths is UpdateValues with the rows below path carrying no value:
// they are the ones longer than path.
func (s *Store) UpdatePaths(ctx context.Context, owner, path string,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	col := fmt.Sprintf("CASE WHEN length(path) > %d THEN NULL ELSE value END", utf8.RuneCountInString(path))
	return s.updateValues(ctx, owner, path, col, fn)
}

// updateValues is UpdateValues reading the value of each row as col.
func (s *Store) updateValues(ctx context.Context, owner, path, col string,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if s.d.postgres() {
			ns, _, _ := strings.Cut(path, "/")
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", owner+"\n"+ns); err != nil {
				return err
			}
		}
		q, args := s.relatedValues(owner, path, col, s.d.lockRows)
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

// relatedValues returns the query of the path, the value as col and the
// size of the rows related to path, in path order. Rows below path are the
// range (path/, path0): '0' follows '/' in ASCII, so the range holds
// exactly the paths that continue path with a '/', and the primary key
// serves it. Ancestors and path itself are looked up by equality.
//
// The two parts are a UNION ALL, each searching the key in path order:
// SQLite planned an OR of them as a scan of every row of the owner
// (100,000 rows made a read of one value take 14 ms), and merges the union
// as it streams, where a sort would hold every row, values and all, in
// memory before the first came out. Postgres merges or sorts by its
// estimates, a large sort spilling to disk. FOR UPDATE (lock) is not
// allowed with a UNION on Postgres, so a locking query there is the OR,
// which Postgres searches as a BitmapOr; it is for writes, which load the
// rows anyway.
func (s *Store) relatedValues(owner, path, col, lock string) (string, []any) {
	sel := "SELECT path, " + col + ", length(value) FROM lattice_values WHERE owner = ? AND "
	var in strings.Builder
	in.WriteString("path IN (?")
	args := []any{owner, path}
	for i := range len(path) {
		if path[i] == '/' {
			in.WriteString(",?")
			args = append(args, path[:i])
		}
	}
	in.WriteString(")")
	const below = "path > ? AND path < ?"
	if lock != "" {
		return s.d.q(sel + "(" + in.String() + " OR (" + below + ")) ORDER BY path" + lock), append(args, path+"/", path+"0")
	}
	return s.d.q(sel + in.String() + " UNION ALL " + sel + below + " ORDER BY 1"), append(args, owner, path+"/", path+"0")
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
		if err := rows.Scan(&r.Path, &r.Value, &r.Size); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
