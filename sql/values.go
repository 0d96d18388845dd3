package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
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
	q, args := s.relatedValues(owner, path, col)
	return s.streamValues(ctx, path, q, args, fn)
}

// streamValues calls fn with each row of the lattice query q, checking
// they come in path order.
func (s *Store) streamValues(ctx context.Context, path, q string, args []any, fn func(runtime.ValueRow) error) error {
	st, err := s.prepared(ctx, q)
	if err != nil {
		return wrap(ctx, err, "load values at %s", path)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return wrap(ctx, err, "load values at %s", path)
	}
	defer rows.Close()
	prev := ""
	for rows.Next() {
		var r runtime.ValueRow
		if err := rows.Scan(&r.Path, &r.Value, &r.Size); err != nil {
			return wrap(ctx, err, "load values at %s", path)
		}
		if err := inOrder(&prev, r.Path); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return wrap(ctx, rows.Err(), "load values at %s", path)
}

// inOrder checks that path follows prev, and makes it prev. Readers of the
// rows assemble values as they stream, which needs path order; the queries
// give it (see relatedValues), and this turns a plan that ever did not into
// a failed read rather than a wrong value.
func inOrder(prev *string, path string) error {
	if *prev != "" && path <= *prev {
		return fmt.Errorf("the store gave the lattice path %q after %q, out of order", path, *prev)
	}
	*prev = path
	return nil
}

// UpdateValues runs fn over the rows related to path in a write transaction,
// then deletes the paths and stores the rows fn returns. If fn fails nothing
// changes and its error is returned.
//
// On SQLite the one writer connection keeps every other writer out. On
// Postgres, an advisory lock on owner and namespace does, taken before the
// rows are read: every path related to path lies in its namespace, and every
// write of a value comes through here, so two writers of related paths always
// contend for the same lock, and the second reads what the first committed.
// Row locks (FOR UPDATE) would add nothing to it, and Postgres refuses them
// on the UNION that streams the rows in path order.
func (s *Store) UpdateValues(ctx context.Context, owner, path string,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	return s.updateValues(ctx, owner, path, func(tx *sqlx.Tx) ([]runtime.ValueRow, error) {
		q, args := s.relatedValues(owner, path, "value")
		return orderedRows(scanValues(tx.QueryContext(ctx, q, args...)))
	}, fn)
}

// UpdatePaths is UpdateValues with the rows below path folded into one row
// at path + "/" (runtime.BelowRow): whether there are any is all it reads
// of them, and deleting that path deletes them all with one statement.
func (s *Store) UpdatePaths(ctx context.Context, owner, path string,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	return s.updateValues(ctx, owner, path, func(tx *sqlx.Tx) ([]runtime.ValueRow, error) {
		return s.pathsAndOneBelow(ctx, tx, owner, path)
	}, fn)
}

// updateValues runs fn over the rows read gives, in a write transaction
// that keeps other writers of path's namespace out, and stores its change.
func (s *Store) updateValues(ctx context.Context, owner, path string, read func(*sqlx.Tx) ([]runtime.ValueRow, error),
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if s.d.postgres() {
			ns, _, _ := strings.Cut(path, "/")
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", owner+"\n"+ns); err != nil {
				return err
			}
		}
		rows, err := read(tx)
		if err != nil {
			return err
		}
		put, del, err := fn(rows)
		if err != nil {
			return err
		}
		before, err := s.valuesUsage(ctx, tx, owner, len(put))
		if err != nil {
			return err
		}
		if err := s.storeValues(ctx, tx, owner, put, del); err != nil {
			return err
		}
		after, err := s.valuesUsage(ctx, tx, owner, len(put))
		if err != nil || after <= before || after <= s.maxValues {
			return err
		}
		return venue.Errorf(venue.ETOOLARGE, "this write would make the values you store %d bytes, over the %d bytes one user may store: delete some first, or ask the venue's operator to raise maxUserValuesBytes", after, s.maxValues)
	})
	return wrap(ctx, err, "update values at %s", path)
}

// valuesUsage returns the bytes of values owner stores, as the triggers of
// values_usage count them, when a write of puts rows is bounded; 0 when
// it is not (no bound, or a write that only deletes). On Postgres a
// concurrent write of another namespace of the same owner may commit
// between the two reads of a write: a write can then be refused for
// another's growth, never let past the bound.
func (s *Store) valuesUsage(ctx context.Context, tx *sqlx.Tx, owner string, puts int) (int64, error) {
	if s.maxValues <= 0 || puts == 0 {
		return 0, nil
	}
	var n int64
	err := tx.StmtContext(ctx, s.valueWrites.usage).QueryRowContext(ctx, owner).Scan(&n)
	return n, err
}

// orderedRows checks that the rows a query gave are in path order.
func orderedRows(rows []runtime.ValueRow, err error) ([]runtime.ValueRow, error) {
	prev := ""
	for i := 0; err == nil && i < len(rows); i++ {
		err = inOrder(&prev, rows[i].Path)
	}
	return rows, err
}

// pathsAndOneBelow reads, in a write transaction, the rows at path and its
// ancestors and one runtime.BelowRow if any lie below it, in one query.
func (s *Store) pathsAndOneBelow(ctx context.Context, tx *sqlx.Tx, owner, path string) ([]runtime.ValueRow, error) {
	q, args := s.pathsAndBelow(owner, path)
	rows, err := scanValues(tx.QueryContext(ctx, q, args...))
	for i, r := range rows {
		if strings.HasPrefix(r.Path, path+"/") {
			rows[i] = runtime.BelowRow(path)
		}
	}
	// A few rows (path, its ancestors, the probe's), sorted here rather
	// than by a temporary table in the database.
	slices.SortFunc(rows, func(a, b runtime.ValueRow) int { return strings.Compare(a.Path, b.Path) })
	return rows, err
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
// memory before the first came out.
//
// Postgres would sort the union, and for a large subtree read it whole
// and sort it on disk before the first row (300,000 rows took 350 ms and
// 70 MB of temporary files). Its form appends the range, in key order, to
// the rows at path and its ancestors, sorted: those are prefixes of every
// path below, so the concatenation is in path order, and Postgres runs the
// parts of a UNION ALL one after the other. inOrder guards that.
func (s *Store) relatedValues(owner, path, col string) (string, []any) {
	sel := "SELECT path, " + col + ", length(value) FROM lattice_values WHERE owner = ? AND "
	in, args := pathIn(owner, path)
	args = append(args, owner, path+"/", path+"0")
	const below = "path > ? AND path < ?"
	if s.d.postgres() {
		return s.d.q("SELECT * FROM (" + sel + in + " ORDER BY path) AS at UNION ALL SELECT * FROM (" + sel + below + " ORDER BY path) AS below"), args
	}
	return s.d.q(sel + in + " UNION ALL " + sel + below + " ORDER BY 1"), args
}

// pathsAndBelow returns the query of the rows at path and its ancestors,
// and of the first row below path, with no value, if there is one.
func (s *Store) pathsAndBelow(owner, path string) (string, []any) {
	in, args := pathIn(owner, path)
	return s.d.q("SELECT path, value, length(value) FROM lattice_values WHERE owner = ? AND " + in +
			" UNION ALL SELECT path, NULL, 0 FROM (SELECT path FROM lattice_values WHERE owner = ? AND path > ? AND path < ? ORDER BY path LIMIT 1) AS b"),
		append(args, owner, path+"/", path+"0")
}

// pathIn is the condition on path and its ancestors, with its arguments
// after owner's.
func pathIn(owner, path string) (string, []any) {
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
	return in.String(), args
}

// storeValues deletes del and stores put. A BelowRow's path in del (one
// ending in '/', which no row's does) deletes every row below its path. Its statements are prepared (valueWrites): parsing
// one again on every write also compiled values_usage's triggers again.
func (s *Store) storeValues(ctx context.Context, tx *sqlx.Tx, owner string, put []runtime.ValueRow, del []string) error {
	w := &s.valueWrites
	for _, p := range del {
		st, args := w.deleteAt, []any{owner, p}
		if below, ok := strings.CutSuffix(p, "/"); ok {
			st, args = w.deleteBelow, []any{owner, below + "/", below + "0"}
		}
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	if len(put) == 0 {
		return nil
	}
	upsert := tx.StmtContext(ctx, w.upsert)
	for _, r := range put {
		if _, err := upsert.ExecContext(ctx, owner, r.Path, r.Value); err != nil {
			return err
		}
	}
	return nil
}

// valueWrites are the statements that write lattice_values, and the
// lookup of an owner's usage, prepared at Open: preparing through the pool
// later, inside a transaction, would wait forever for SQLite's one writer
// connection.
type valueWrites struct {
	upsert, deleteAt, deleteBelow, usage *dbsql.Stmt
}

func (s *Store) prepareValueWrites(ctx context.Context) error {
	w := &s.valueWrites
	for _, p := range []struct {
		st **dbsql.Stmt
		q  string
	}{
		{&w.upsert, "INSERT INTO lattice_values (owner, path, value) VALUES (?, ?, ?) ON CONFLICT (owner, path) DO UPDATE SET value = excluded.value"},
		{&w.deleteAt, "DELETE FROM lattice_values WHERE owner = ? AND path = ?"},
		{&w.deleteBelow, "DELETE FROM lattice_values WHERE owner = ? AND path > ? AND path < ?"},
		{&w.usage, "SELECT COALESCE(MAX(bytes), 0) FROM values_usage WHERE owner = ?"},
	} {
		st, err := s.w.PrepareContext(ctx, s.d.q(p.q))
		if err != nil {
			return fmt.Errorf("prepare %q: %w", p.q, err)
		}
		*p.st = st
	}
	return nil
}

func (w *valueWrites) close() error {
	var errs []error
	for _, st := range []*dbsql.Stmt{w.upsert, w.deleteAt, w.deleteBelow, w.usage} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
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
