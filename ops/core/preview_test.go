package core

import (
	"testing"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// The guest tests (ops/guest_test.go) run core:inspect in the built
// module; these pin the renderer's edge cases natively.

func TestRenderer_Value(t *testing.T) {
	for _, tc := range []struct {
		name    string
		value   string
		budget  int
		compact bool
		want    string
	}{
		{"empty containers", `{"a":{},"b":[]}`, 100, false, `{a: {}, b: []}`},
		{"keys that are not identifiers are quoted", `{"a b":1,"1x":2,"_ok$":3}`, 100, false, `{"a b": 1, "1x": 2, _ok$: 3}`},
		{"a string is cut at a rune boundary", `"ééééééééééééééééééééééééééééé"`, 30, false, `"ééééé…" /* 29 chars */`},
		{"a short string is never cut", `"abc"`, 1, false, `"abc"`},
		{"compact notes", `[1,2,3,4,5,6,7,8,9,10,11,12]`, 20, true, `[1,2,…/*10 more*/]`},
		{"an array shows its first element in detail", `[{"a":"xxxxxxxxxx","b":2},{"a":"y","b":3},{"a":"z","b":4}]`, 50, false,
			`[{a: "xxxxxxxxxx", b: 2}, … /* 2 more */]`},
		{"later elements only whole", `[{"a":"xxxxxxxxxx","b":2},{"a":"yyyyyyyyyyyyyyyyyyyy","b":3}]`, 45, false,
			`[{a: "xxxxxxxxxx", b: 2}, … /* 1 more */]`},
		{"a value too big for its budget is summarised", `[[1,2,3,4,5,6,7,8,9]]`, 10, false, `[[…]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := jsonv.Parse([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			if got := newRenderer(tc.compact).value(v, tc.budget); got != tc.want {
				t.Errorf("value(%s, %d) = %s, want %s", tc.value, tc.budget, got, tc.want)
			}
		})
	}
}

func TestFairShares(t *testing.T) {
	got := fairShares([]int{5, 100, 20, 100}, 105)
	want := shareList{5, 40, 20, 40}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fairShares = %v, want %v", got, want)
		}
	}
}
