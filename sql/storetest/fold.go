package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// testFolds: a folded read or update gives the rows around the fold and
// the kept ones as they are, the rest below the fold as one BelowRow, in
// path order; deleting that row deletes them all.
func testFolds(t *testing.T, s runtime.Store) {
	const owner = "did:key:z6MkFolds"
	mustPut(t, s, owner,
		runtime.ValueRow{Path: "g/bot/config", Value: []byte(`{}`)},
		runtime.ValueRow{Path: "g/bot/sessions-x", Value: []byte(`1`)},
		runtime.ValueRow{Path: "g/bot/sessions/a1", Value: []byte(`"a"`)},
		runtime.ValueRow{Path: "g/bot/sessions/b2/meta", Value: []byte(`"b"`)},
		runtime.ValueRow{Path: "g/bot/sessions/b2/pending", Value: []byte(`[]`)},
		runtime.ValueRow{Path: "g/bot/sessions/b20", Value: []byte(`"b20"`)},
		runtime.ValueRow{Path: "g/bot/sessions/c3", Value: []byte(`"c"`)},
		runtime.ValueRow{Path: "g/bot/sessions0", Value: []byte(`0`)},
		runtime.ValueRow{Path: "g/bot/timeline", Value: []byte(`[]`)},
		runtime.ValueRow{Path: "g/bot2/config", Value: []byte(`{}`)},
	)
	mustPut(t, s, alice, runtime.ValueRow{Path: "g/bot/sessions/zz", Value: []byte(`"alice's"`)})
	around := []string{"g/bot/config={}", "g/bot/sessions-x=1"}
	after := []string{"g/bot/sessions0=0", "g/bot/timeline=[]"}
	for _, tc := range []struct {
		name string
		keep []string
		skip []string
		want []string
	}{
		{"none kept", nil, nil, []string{"g/bot/sessions/="}},
		{"one kept", []string{"g/bot/sessions/b2"}, nil, []string{"g/bot/sessions/=", `g/bot/sessions/b2/meta="b"`, "g/bot/sessions/b2/pending=[]"}},
		{"two kept, out of order", []string{"g/bot/sessions/c3", "g/bot/sessions/a1"}, nil,
			[]string{"g/bot/sessions/=", `g/bot/sessions/a1="a"`, `g/bot/sessions/c3="c"`}},
		{"a kept path that is not there", []string{"g/bot/sessions/new"}, nil, []string{"g/bot/sessions/="}},
		{"rows skipped", []string{"g/bot/sessions/b20"}, []string{"g/bot/timeline", "g/bot/config", "g/bot/none"},
			[]string{"g/bot/sessions-x=1", "g/bot/sessions/=", `g/bot/sessions/b20="b20"`, "g/bot/sessions0=0"}},
		{"every row kept", []string{"g/bot/sessions/a1", "g/bot/sessions/b2", "g/bot/sessions/b20", "g/bot/sessions/c3"}, nil,
			[]string{`g/bot/sessions/a1="a"`, `g/bot/sessions/b2/meta="b"`, "g/bot/sessions/b2/pending=[]", `g/bot/sessions/b20="b20"`, `g/bot/sessions/c3="c"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fold := runtime.Fold{Path: "g/bot/sessions", Keep: tc.keep, Skip: tc.skip}
			want := append(append(append([]string{}, around...), tc.want...), after...)
			if tc.skip != nil {
				want = tc.want
			}
			wantFolded(t, s, owner, fold, want)
		})
	}
	// A kept path that sorts between another and the rows below it ('-'
	// and '.' sort before '/'): the kept rows come in path order all the
	// same. Postgres appended each kept path's rows after the last's, so
	// b2/meta came before b2-x, and the read failed its order check.
	t.Run("kept paths that interleave", func(t *testing.T) {
		const owner = "did:key:z6MkFoldsInterleave"
		mustPut(t, s, owner,
			runtime.ValueRow{Path: "g/bot/sessions/b2/meta", Value: []byte(`"b"`)},
			runtime.ValueRow{Path: "g/bot/sessions/b2-x", Value: []byte(`"x"`)},
			runtime.ValueRow{Path: "g/bot/sessions/b2.y/meta", Value: []byte(`"y"`)},
			runtime.ValueRow{Path: "g/bot/sessions/c3", Value: []byte(`"c"`)},
		)
		fold := runtime.Fold{Path: "g/bot/sessions", Keep: []string{"g/bot/sessions/b2", "g/bot/sessions/b2-x", "g/bot/sessions/b2.y"}}
		want := []string{"g/bot/sessions/=", `g/bot/sessions/b2-x="x"`, `g/bot/sessions/b2.y/meta="y"`, `g/bot/sessions/b2/meta="b"`}
		wantFolded(t, s, owner, fold, want)
	})
	t.Run("a fold that is not below the path is refused", func(t *testing.T) {
		for _, fold := range []runtime.Fold{
			{Path: "g/bot"},
			{Path: "g/bott/sessions"},
			{Path: "g/bot/sessions", Keep: []string{"g/bot/timeline"}},
			{Path: "g/bot/sessions", Keep: []string{"g/bot/sessions/a1", "g/bot/sessions/a1/x"}},
			{Path: "g/bot/sessions", Skip: []string{"g/bot/sessions/a1"}},
			{Path: "g/bot/sessions", Skip: []string{"g/bot/sessions"}},
			{Path: "g/bot/sessions", Skip: []string{"g/bott"}},
		} {
			if err := s.FoldedRows(t.Context(), owner, "g/bot", fold, func(runtime.ValueRow) error { return nil }); err == nil {
				t.Errorf("FoldedRows took %+v", fold)
			}
		}
	})
	t.Run("an update changes a kept row and deletes the folded ones", func(t *testing.T) {
		fold := runtime.Fold{Path: "g/bot/sessions", Keep: []string{"g/bot/sessions/c3"}}
		err := s.UpdateFolded(t.Context(), owner, "g/bot", fold, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "g/bot/sessions/c3", Value: []byte(`"c2"`)}}, []string{runtime.BelowRow("g/bot/sessions").Path}, nil
		})
		rows, _ := valueRows(t.Context(), s, owner, "g")
		want := []string{"g/bot/config={}", "g/bot/sessions-x=1", `g/bot/sessions/c3="c2"`, "g/bot/sessions0=0", "g/bot/timeline=[]", "g/bot2/config={}"}
		if got := shown(rows); err != nil || !slices.Equal(got, want) {
			t.Fatalf("rows %q, %v; want %q", got, err, want)
		}
		if rows, _ := valueRows(t.Context(), s, alice, "g/bot/sessions"); len(rows) != 1 {
			t.Fatalf("another owner's rows: %q", shown(rows))
		}
	})
}

// wantFolded checks that a folded read and a folded update of owner's
// g/bot give the rows want ("path=value"), in that order, each with its
// size.
func wantFolded(t *testing.T, s runtime.Store, owner string, fold runtime.Fold, want []string) {
	t.Helper()
	var read []string
	err := s.FoldedRows(t.Context(), owner, "g/bot", fold, func(r runtime.ValueRow) error {
		if len(r.Value) != r.Size {
			return fmt.Errorf("row %s of %d bytes says %d", r.Path, len(r.Value), r.Size)
		}
		read = append(read, r.Path+"="+string(r.Value))
		return nil
	})
	if err != nil || !slices.Equal(read, want) {
		t.Fatalf("FoldedRows gave %q, %v; want %q", read, err, want)
	}
	var seen []string
	err = s.UpdateFolded(t.Context(), owner, "g/bot", fold, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		seen = shown(rows)
		return nil, nil, nil
	})
	if err != nil || !slices.Equal(seen, want) {
		t.Fatalf("UpdateFolded saw %q, %v; want %q", seen, err, want)
	}
}
