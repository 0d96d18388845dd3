package sql

import (
	"fmt"
	"maps"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// TestValuesUsage_MatchesTheRows: after inserts, replacements, deletes of a
// row and of a subtree, what values_usage holds for each owner is what
// summing the owner's rows gives, the same sum migration 0004 (SQLite) and
// 0003 (Postgres) start the table with.
func TestValuesUsage_MatchesTheRows(t *testing.T) {
	for _, o := range openers(t) {
		t.Run(o.name, func(t *testing.T) {
			s := o.open(t)
			write := func(owner, path string, paths bool, put []runtime.ValueRow, del ...string) {
				fn := func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) { return put, del, nil }
				update := s.UpdateValues
				if paths {
					update = s.UpdatePaths
				}
				if err := update(t.Context(), owner, path, fn); err != nil {
					t.Fatal(err)
				}
			}
			v := func(path, value string) runtime.ValueRow { return runtime.ValueRow{Path: path, Value: []byte(value)} }
			for i, owner := range []string{"did:key:a", "did:key:ü"} {
				write(owner, "w/x", false, []runtime.ValueRow{v("w/x/1", `"één"`), v("w/x/2", fmt.Sprint(i)), v("w/x/3/deep", `[1,2,3]`)})
				write(owner, "w/x/2", false, []runtime.ValueRow{v("w/x/2", `"longer than before"`)})
				write(owner, "o/pin", false, []runtime.ValueRow{v("o/pin", `"v/ops/core/read"`), v("o/pín", `{}`)})
				write(owner, "o/pin", false, nil, "o/pin")
			}
			write("did:key:a", "w/x", true, []runtime.ValueRow{v("w/x", `"flat"`)}, runtime.BelowRow("w/x").Path)
			kept, summed := usageTable(t, s, "SELECT owner, bytes FROM values_usage"),
				usageTable(t, s, "SELECT owner, SUM(octet_length(path) + octet_length(value)) FROM lattice_values GROUP BY owner")
			if !maps.Equal(kept, summed) || len(kept) != 2 {
				t.Fatalf("values_usage holds %v, the rows sum to %v", kept, summed)
			}
		})
	}
}

func usageTable(t *testing.T, s *Store, q string) map[string]int64 {
	t.Helper()
	rows, err := s.r.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var owner string
		var n int64
		if err := rows.Scan(&owner, &n); err != nil {
			t.Fatal(err)
		}
		out[owner] = n
	}
	return out
}
