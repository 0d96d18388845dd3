package core

import (
	"strings"
	"testing"
	"time"

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

// TestRenderer_Hostile renders values that once took time exponential or
// quadratic in their depth, or crashed: each must render within the
// renderer's steps and as a preview.
func TestRenderer_Hostile(t *testing.T) {
	chain := strings.Repeat(`{"k1":1,"k2":"yy","z":`, 60) + `"` + strings.Repeat("x", 1000) + `"` + strings.Repeat("}", 60)
	for _, tc := range []struct {
		name   string
		value  string
		budget int
		want   string
	}{
		{"60 nested objects, small budget", chain, 60, `{k1: 1, k2: "yy", z: {k1: 1, k2: "yy", z: {…}}}`},
		{"60 nested objects, large budget", chain, 3000, `{k1: 1, k2: "yy", z: {k1: 1, k2: "yy", z: {k1: 1,`},
		{"a long string 2000 arrays deep", strings.Repeat("[", 2000) + `"` + strings.Repeat("x", 900_000) + `"` + strings.Repeat("]", 2000), 800_000, `[[[[`},
		{"an empty string past the budget", `{"` + strings.Repeat("k", 40) + `":""}`, 30, `{kkkk`},
		{"a single long number", `[123456789012345678901234567890]`, 8, `[123456789012345678901234567890]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := jsonv.Parse([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := newRenderer(false)
			got := r.value(v, tc.budget)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("rendering took %s", took)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("value = %.200s, want it to start %s", got, tc.want)
			}
			if *r.steps < -tc.budget {
				t.Errorf("the renderer overspent its steps: %d left", *r.steps)
			}
		})
	}
}
