package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// paths returns the rows' paths.
func paths(rows []runtime.ValueRow) []string {
	var ps []string
	for _, r := range rows {
		ps = append(ps, r.Path)
	}
	return ps
}

func mustPut(t *testing.T, s runtime.Store, owner string, rows ...runtime.ValueRow) {
	t.Helper()
	err := s.UpdateValues(t.Context(), owner, rows[0].Path, func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		return rows, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testValueRows(t *testing.T, s runtime.Store) {
	for i, p := range []string{"w/a", "w/ab/c", "w/a-b", "w/a0", "w/b/x", "w/b/y/z", "o/a"} {
		mustPut(t, s, alice, runtime.ValueRow{Path: p, Value: fmt.Appendf(nil, `{"n":%d}`, i)})
	}
	mustPut(t, s, bob, runtime.ValueRow{Path: "w/b/q", Value: []byte(`"bob"`)})
	for _, tc := range []struct {
		name, owner, path string
		want              []string
	}{
		{"row at the path itself", alice, "w/a", []string{"w/a"}},
		{"row at an ancestor", alice, "w/a/x/y", []string{"w/a"}},
		{"rows below the path", alice, "w/b", []string{"w/b/x", "w/b/y/z"}},
		{"rows below a deeper path", alice, "w/b/y", []string{"w/b/y/z"}},
		{"whole namespace in path order", alice, "w", []string{"w/a", "w/a-b", "w/a0", "w/ab/c", "w/b/x", "w/b/y/z"}},
		{"sibling with a longer name is not below", alice, "w/ab", []string{"w/ab/c"}},
		{"sibling sharing a prefix is not an ancestor", alice, "w/ab/c/d", []string{"w/ab/c"}},
		{"unrelated path has none", alice, "w/c", nil},
		{"other namespace", alice, "o", []string{"o/a"}},
		{"other owner sees only its rows", bob, "w/b", []string{"w/b/q"}},
		{"unknown owner has none", "did:key:nobody", "w", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := s.ValueRows(t.Context(), tc.owner, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(rows); !slices.Equal(got, tc.want) {
				t.Fatalf("ValueRows(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
	t.Run("values come back byte for byte", func(t *testing.T) {
		rows, _ := s.ValueRows(t.Context(), alice, "w/a0")
		if len(rows) != 1 || string(rows[0].Value) != `{"n":3}` {
			t.Fatalf("ValueRows = %q", rows)
		}
	})
}

func testUpdateValues(t *testing.T, s runtime.Store) {
	mustPut(t, s, alice, runtime.ValueRow{Path: "w/t/x", Value: []byte(`1`)}, runtime.ValueRow{Path: "w/t/y", Value: []byte(`2`)})
	t.Run("fn sees the rows ValueRows returns", func(t *testing.T) {
		var seen []string
		err := s.UpdateValues(t.Context(), alice, "w/t", func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			seen = paths(rows)
			return nil, nil, nil
		})
		if want := []string{"w/t/x", "w/t/y"}; err != nil || !slices.Equal(seen, want) {
			t.Fatalf("fn saw %q, %v; want %q", seen, err, want)
		}
	})
	t.Run("fn error changes nothing and is returned", func(t *testing.T) {
		boom := errors.New("boom")
		err := s.UpdateValues(t.Context(), alice, "w/t", func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "w/t", Value: []byte(`3`)}}, []string{"w/t/x", "w/t/y"}, boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("UpdateValues = %v, want %v", err, boom)
		}
		rows, _ := s.ValueRows(t.Context(), alice, "w/t")
		if got := paths(rows); !slices.Equal(got, []string{"w/t/x", "w/t/y"}) {
			t.Fatalf("rows after failed update = %q", got)
		}
	})
	t.Run("subtree replaced by a whole value", func(t *testing.T) {
		err := s.UpdateValues(t.Context(), alice, "w/t", func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "w/t", Value: []byte(`{"x":1,"y":2}`)}}, paths(rows), nil
		})
		rows, _ := s.ValueRows(t.Context(), alice, "w/t/x")
		if err != nil || len(rows) != 1 || rows[0].Path != "w/t" || string(rows[0].Value) != `{"x":1,"y":2}` {
			t.Fatalf("rows = %q, %v", rows, err)
		}
	})
	t.Run("put replaces a stored value", func(t *testing.T) {
		mustPut(t, s, alice, runtime.ValueRow{Path: "w/t", Value: []byte(`"new"`)})
		rows, _ := s.ValueRows(t.Context(), alice, "w/t")
		if len(rows) != 1 || string(rows[0].Value) != `"new"` {
			t.Fatalf("rows = %q", rows)
		}
	})
	t.Run("deleted path is gone", func(t *testing.T) {
		err := s.UpdateValues(t.Context(), alice, "w/t", func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return nil, []string{"w/t"}, nil
		})
		if rows, _ := s.ValueRows(t.Context(), alice, "w"); err != nil || len(rows) != 0 {
			t.Fatalf("rows = %q, %v", rows, err)
		}
	})
}

func testUpdateValuesConcurrent(t *testing.T, s runtime.Store) {
	for _, tc := range []struct {
		name    string
		paths   []string // goroutine g updates through paths[g%len(paths)]
		counter string   // the path all of them increment
	}{
		{"no lost updates at one path", []string{"w/count"}, "w/count"},
		{"no lost updates through related paths", []string{"w/n", "w/n/c", "w"}, "w/n/c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const writers = 20
			counter := tc.counter
			var wg sync.WaitGroup
			for g := range writers {
				wg.Go(func() {
					if err := s.UpdateValues(t.Context(), alice, tc.paths[g%len(tc.paths)], increment(counter)); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			rows, err := s.ValueRows(t.Context(), alice, counter)
			if err != nil || len(rows) != 1 || string(rows[0].Value) != strconv.Itoa(writers) {
				t.Fatalf("counter = %q, %v; want %d", rows, err, writers)
			}
		})
	}
}

// increment adds one to the number stored at path (0 if absent).
func increment(path string) func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
	return func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		n := 0
		for _, r := range rows {
			if r.Path == path {
				var err error
				if n, err = strconv.Atoi(string(r.Value)); err != nil {
					return nil, nil, err
				}
			}
		}
		return []runtime.ValueRow{{Path: path, Value: strconv.AppendInt(nil, int64(n+1), 10)}}, nil, nil
	}
}
