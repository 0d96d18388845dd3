package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// shown is rows as text, for failures.
func shown(rows []runtime.ValueRow) []string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Path+"="+string(r.Value))
	}
	return s
}

// valueRows gathers what ValueRows gives.
func valueRows(ctx context.Context, s runtime.Store, owner, path string) ([]runtime.ValueRow, error) {
	var rows []runtime.ValueRow
	err := s.ValueRows(ctx, owner, path, false, func(r runtime.ValueRow) error {
		rows = append(rows, r)
		return nil
	})
	return rows, err
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
	for i, p := range []string{"w/a", "w/ab/c", "w/a-b", "w/a0", "w/b/x", "w/b/y/z", "o/a", "w/k/x", "w/k-b", "w/k/y"} {
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
		{"whole namespace in path order", alice, "w", []string{"w/a", "w/a-b", "w/a0", "w/ab/c", "w/b/x", "w/b/y/z", "w/k-b", "w/k/x", "w/k/y"}},
		{"sibling with a longer name is not below", alice, "w/ab", []string{"w/ab/c"}},
		{"sibling sharing a prefix is not an ancestor", alice, "w/ab/c/d", []string{"w/ab/c"}},
		{"unrelated path has none", alice, "w/c", nil},
		{"other namespace", alice, "o", []string{"o/a"}},
		{"other owner sees only its rows", bob, "w/b", []string{"w/b/q"}},
		{"unknown owner has none", "did:key:nobody", "w", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := valueRows(t.Context(), s, tc.owner, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := paths(rows); !slices.Equal(got, tc.want) {
				t.Fatalf("ValueRows(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
	t.Run("sizes only", func(t *testing.T) {
		var got []string
		err := s.ValueRows(t.Context(), alice, "w/b", true, func(r runtime.ValueRow) error {
			got = append(got, fmt.Sprintf("%s %d %q", r.Path, r.Size, r.Value))
			return nil
		})
		if want := []string{`w/b/x 7 ""`, `w/b/y/z 7 ""`}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("ValueRows(sizes only) = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("fn's error stops the rows", func(t *testing.T) {
		stop, n := errors.New("stop"), 0
		err := s.ValueRows(t.Context(), alice, "w", false, func(r runtime.ValueRow) error {
			n++
			return stop
		})
		if !errors.Is(err, stop) || n != 1 {
			t.Fatalf("ValueRows = %v after %d rows, want %v after 1", err, n, stop)
		}
	})
	t.Run("values come back byte for byte", func(t *testing.T) {
		rows, _ := valueRows(t.Context(), s, alice, "w/a0")
		if len(rows) != 1 || string(rows[0].Value) != `{"n":3}` {
			t.Fatalf("ValueRows = %q", shown(rows))
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
	t.Run("UpdatePaths folds the rows below the path into one", func(t *testing.T) {
		mustPut(t, s, alice, runtime.ValueRow{Path: "o/p", Value: []byte(`{"a":1}`)})
		for _, tc := range []struct {
			name, path string
			want       []string
		}{
			{"rows below", "w/t", []string{"w/t/= 0"}},
			{"none below", "w/none", nil},
			{"the row itself", "w/t/x", []string{"w/t/x=1 1"}},
			{"an ancestor", "o/p/a", []string{`o/p={"a":1} 7`}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var seen []string
				err := s.UpdatePaths(t.Context(), alice, tc.path, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
					for _, r := range rows {
						seen = append(seen, fmt.Sprintf("%s=%s %d", r.Path, r.Value, r.Size))
					}
					return nil, nil, nil
				})
				if err != nil || !slices.Equal(seen, tc.want) {
					t.Fatalf("fn saw %q, %v; want %q", seen, err, tc.want)
				}
			})
		}
	})
	t.Run("deleting the folded row deletes every row below", func(t *testing.T) {
		mustPut(t, s, alice, runtime.ValueRow{Path: "o/sub/a", Value: []byte(`1`)}, runtime.ValueRow{Path: "o/sub/b/c", Value: []byte(`2`)},
			runtime.ValueRow{Path: "o/sub-x", Value: []byte(`3`)}, runtime.ValueRow{Path: "o/sub0", Value: []byte(`4`)})
		err := s.UpdatePaths(t.Context(), alice, "o/sub", func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "o/sub", Value: []byte(`5`)}}, []string{runtime.BelowRow("o/sub").Path}, nil
		})
		rows, _ := valueRows(t.Context(), s, alice, "o")
		var got []string
		for _, r := range rows {
			if strings.HasPrefix(r.Path, "o/sub") {
				got = append(got, r.Path+"="+string(r.Value))
			}
		}
		if want := []string{"o/sub=5", "o/sub-x=3", "o/sub0=4"}; err != nil || !slices.Equal(got, want) {
			t.Fatalf("rows %q, %v; want %q", got, err, want)
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
		rows, _ := valueRows(t.Context(), s, alice, "w/t")
		if got := paths(rows); !slices.Equal(got, []string{"w/t/x", "w/t/y"}) {
			t.Fatalf("rows after failed update = %q", got)
		}
	})
	t.Run("subtree replaced by a whole value", func(t *testing.T) {
		err := s.UpdateValues(t.Context(), alice, "w/t", func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "w/t", Value: []byte(`{"x":1,"y":2}`)}}, paths(rows), nil
		})
		rows, _ := valueRows(t.Context(), s, alice, "w/t/x")
		if err != nil || len(rows) != 1 || rows[0].Path != "w/t" || string(rows[0].Value) != `{"x":1,"y":2}` {
			t.Fatalf("rows = %q, %v", shown(rows), err)
		}
	})
	t.Run("put replaces a stored value", func(t *testing.T) {
		mustPut(t, s, alice, runtime.ValueRow{Path: "w/t", Value: []byte(`"new"`)})
		rows, _ := valueRows(t.Context(), s, alice, "w/t")
		if len(rows) != 1 || string(rows[0].Value) != `"new"` {
			t.Fatalf("rows = %q", shown(rows))
		}
	})
	t.Run("deleted path is gone", func(t *testing.T) {
		err := s.UpdateValues(t.Context(), alice, "w/t", func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return nil, []string{"w/t"}, nil
		})
		if rows, _ := valueRows(t.Context(), s, alice, "w"); err != nil || len(rows) != 0 {
			t.Fatalf("rows = %q, %v", shown(rows), err)
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
			rows, err := valueRows(t.Context(), s, alice, counter)
			if err != nil || len(rows) != 1 || string(rows[0].Value) != strconv.Itoa(writers) {
				t.Fatalf("counter = %q, %v; want %d", shown(rows), err, writers)
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
