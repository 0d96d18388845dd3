package storetest

import (
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// MaxUserValuesBytes is the bound on one owner's values (paths and values
// in bytes) that the stores Run tests must be opened with.
const MaxUserValuesBytes = 1 << 20

// text is a JSON string of n bytes in all.
func text(n int) []byte { return []byte(`"` + strings.Repeat("v", n-2) + `"`) }

// update runs one UpdateValues (or, paths, UpdatePaths) at path that
// stores put and deletes del.
func update(t *testing.T, s runtime.Store, owner, path string, paths bool, put []runtime.ValueRow, del ...string) error {
	t.Helper()
	fn := func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) { return put, del, nil }
	if paths {
		return s.UpdatePaths(t.Context(), owner, path, fn)
	}
	return s.UpdateValues(t.Context(), owner, path, fn)
}

func row(path string, size int) []runtime.ValueRow {
	return []runtime.ValueRow{{Path: path, Value: text(size)}}
}

// testValuesUsage: a write that would take an owner's values past
// MaxUserValuesBytes fails with ETOOLARGE and changes nothing; what counts
// is the bytes of the paths and values stored after the write.
func testValuesUsage(t *testing.T, s runtime.Store) {
	const max = MaxUserValuesBytes
	refused := func(t *testing.T, err error) {
		t.Helper()
		if venue.ErrorCode(err) != venue.ETOOLARGE || !strings.Contains(err.Error(), "bytes one user may store") {
			t.Fatalf("error %v, want ETOOLARGE saying what one user may store", err)
		}
	}
	mustUpdate := func(t *testing.T, owner, path string, paths bool, put []runtime.ValueRow, del ...string) {
		t.Helper()
		if err := update(t, s, owner, path, paths, put, del...); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("paths and values count to the byte", func(t *testing.T) {
		owner := "did:key:exact"
		mustUpdate(t, owner, "w/p", false, row("w/p", max-len("w/p")))
		refused(t, update(t, s, owner, "w/q", false, row("w/q", 2)))
		if rows, _ := valueRows(t.Context(), s, owner, "w/q"); len(rows) != 0 {
			t.Fatalf("the refused write left %q", paths(rows))
		}
	})
	t.Run("a refused write of several rows stores none of them", func(t *testing.T) {
		owner := "did:key:several"
		put := append(row("w/m/a", max/2), row("w/m/b", max/2)...)
		refused(t, update(t, s, owner, "w/m", false, put))
		if rows, _ := valueRows(t.Context(), s, owner, "w/m"); len(rows) != 0 {
			t.Fatalf("the refused write left %q", paths(rows))
		}
	})
	t.Run("a replaced value counts once", func(t *testing.T) {
		owner := "did:key:replace"
		for range 3 {
			mustUpdate(t, owner, "w/r", false, row("w/r", max*3/5))
		}
		mustUpdate(t, owner, "w/r", false, row("w/r", 10)) // a smaller value for a larger
		mustUpdate(t, owner, "w/s", false, row("w/s", max*3/5))
	})
	t.Run("a deleted value frees its room", func(t *testing.T) {
		owner := "did:key:delete"
		mustUpdate(t, owner, "w/d", false, row("w/d", max*3/5))
		mustUpdate(t, owner, "w/d", false, nil, "w/d")
		mustUpdate(t, owner, "w/e", false, row("w/e", max*3/5))
	})
	t.Run("a subtree deleted whole frees its room", func(t *testing.T) {
		owner := "did:key:subtree"
		mustUpdate(t, owner, "w/t", false, append(row("w/t/x", max/3), row("w/t/y", max/3)...))
		mustUpdate(t, owner, "w/t", true, row("w/t", 10), runtime.BelowRow("w/t").Path)
		mustUpdate(t, owner, "w/u", false, row("w/u", max*4/5))
	})
	t.Run("owners count apart", func(t *testing.T) {
		mustUpdate(t, "did:key:one", "w/a", false, row("w/a", max*3/5))
		mustUpdate(t, "did:key:two", "w/a", false, row("w/a", max*3/5))
	})
}
