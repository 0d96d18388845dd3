package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// FoldedRows is ValueRows with the rows below fold.Path left out but for
// those at or below fold.Keep: the rest come as one runtime.BelowRow if
// there are any. An agent's record so loads without its sessions, however
// many it has gathered.
func (s *Store) FoldedRows(ctx context.Context, owner, path string, fold runtime.Fold, fn func(runtime.ValueRow) error) error {
	if err := checkFold(path, fold); err != nil {
		return err
	}
	q, args := s.foldedValues(owner, path, fold, "value")
	return s.streamValues(ctx, path, q, args, fn)
}

// UpdateFolded is UpdateValues over the rows FoldedRows gives. Deleting
// the BelowRow's path deletes every row below fold.Path, kept ones too,
// before the rows fn puts are stored.
func (s *Store) UpdateFolded(ctx context.Context, owner, path string, fold runtime.Fold,
	fn func(rows []runtime.ValueRow) (put []runtime.ValueRow, del []string, err error)) error {
	if err := checkFold(path, fold); err != nil {
		return err
	}
	return s.updateValues(ctx, owner, path, func(tx *sqlx.Tx) ([]runtime.ValueRow, error) {
		q, args := s.foldedValues(owner, path, fold, "value")
		return orderedRows(scanValues(tx.QueryContext(ctx, q, args...)))
	}, fn)
}

// checkFold refuses a fold that does not lie below path, or keeps a path
// not below the fold or inside another kept one: its query would give rows
// out of path order, or twice.
func checkFold(path string, fold runtime.Fold) error {
	if !strings.HasPrefix(fold.Path, path+"/") {
		return fmt.Errorf("fold %q does not lie below %q", fold.Path, path)
	}
	for _, p := range fold.Skip {
		if !strings.HasPrefix(p, path+"/") || p == fold.Path || strings.HasPrefix(p, fold.Path+"/") {
			return fmt.Errorf("skipped path %q does not lie below %q outside the fold %q", p, path, fold.Path)
		}
	}
	keep := slices.Sorted(slices.Values(fold.Keep))
	for i, k := range keep {
		if !strings.HasPrefix(k, fold.Path+"/") {
			return fmt.Errorf("kept path %q does not lie below the fold %q", k, fold.Path)
		}
		if i > 0 && (k == keep[i-1] || strings.HasPrefix(k, keep[i-1]+"/")) {
			return fmt.Errorf("kept path %q lies at or below another, %q", k, keep[i-1])
		}
	}
	return nil
}

// foldedValues is relatedValues with the rows below fold.Path replaced by
// one row at its BelowRow path if any lie outside the kept paths, followed
// by the rows at or below each kept path, and without the rows at
// fold.Skip. The parts come in path order:
// the rows at path and its ancestors; those below path before the fold's
// range (fold.Path itself among them); the BelowRow, whose path ends in
// '/' and so sorts before every row below the fold; the rows at each
// kept path and those below it, these parts sorted by where each begins;
// and the rows after the fold's range. As in relatedValues,
// Postgres appends the parts in order and SQLite merges them, each part a
// search of the primary key.
func (s *Store) foldedValues(owner, path string, fold runtime.Fold, col string) (string, []any) {
	sel := "SELECT path, " + col + ", length(value) FROM lattice_values WHERE owner = ? AND "
	in, args := pathIn(owner, path)
	parts := []string{sel + in}
	add := func(q string, a ...any) {
		parts = append(parts, q)
		args = append(args, a...)
	}
	skip, skipArgs := "", []any{}
	for _, p := range fold.Skip {
		skip += " AND path <> ?"
		skipArgs = append(skipArgs, p)
	}
	add(sel+"path > ? AND path < ?"+skip, append([]any{owner, path + "/", fold.Path + "/"}, skipArgs...)...)
	// The BelowRow's path is a parameter, typed as the path column is
	// for Postgres, whose UNION would not otherwise match it (nor NULL).
	belowRow := "SELECT ?, NULL, 0"
	if s.d.postgres() {
		belowRow = `SELECT CAST(? AS text) COLLATE "C", CAST(NULL AS bytea), 0`
	}
	keep := slices.Sorted(slices.Values(fold.Keep))
	outside := ""
	var outsideArgs []any
	for _, k := range keep {
		outside += " AND path <> ? AND NOT (path > ? AND path < ?)"
		outsideArgs = append(outsideArgs, k, k+"/", k+"0")
	}
	add(belowRow+" FROM (SELECT path FROM lattice_values WHERE owner = ? AND path > ? AND path < ?"+outside+" ORDER BY path LIMIT 1) AS b",
		append([]any{fold.Path + "/", owner, fold.Path + "/", fold.Path + "0"}, outsideArgs...)...)
	// Two parts a kept path, not an OR: SQLite planned that as a scan of
	// every row of the owner. The parts are disjoint (no kept path lies
	// below another) and go in the order of where each begins: a kept path
	// may sort between another and the rows below it ("s/a-b" between
	// "s/a" and "s/a/x"), and Postgres appends the parts as they come.
	type keptPart struct{ from, q, to string }
	var kept []keptPart
	for _, k := range keep {
		kept = append(kept, keptPart{k, sel + "path = ?", ""}, keptPart{k + "/", sel + "path > ? AND path < ?", k + "0"})
	}
	slices.SortFunc(kept, func(a, b keptPart) int { return strings.Compare(a.from, b.from) })
	for _, p := range kept {
		if p.to == "" {
			add(p.q, owner, p.from)
		} else {
			add(p.q, owner, p.from, p.to)
		}
	}
	add(sel+"path >= ? AND path < ?"+skip, append([]any{owner, fold.Path + "0", path + "0"}, skipArgs...)...)
	if s.d.postgres() {
		for i, p := range parts {
			parts[i] = "SELECT * FROM (" + p + " ORDER BY path) AS p" + fmt.Sprint(i)
		}
		return s.d.q(strings.Join(parts, " UNION ALL ")), args
	}
	return s.d.q(strings.Join(parts, " UNION ALL ") + " ORDER BY 1"), args
}
