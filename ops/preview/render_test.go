package preview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

func TestRenderer_Value(t *testing.T) {
	for _, tc := range []struct {
		name    string
		value   string
		budget  int
		compact bool
		want    string
	}{
		{"empty containers", `{"a":{},"b":[]}`, 100, false, `{a: {}, b: []}`},
		{"keys keep their order", `{"b":1,"a":2}`, 100, false, `{b: 1, a: 2}`},
		{"keys that are not identifiers are quoted", `{"a b":1,"1x":2,"_ok$":3}`, 100, false, `{"a b": 1, "1x": 2, _ok$: 3}`},
		{"numbers keep their text", `[1.50,-2e3,12345678901234567890]`, 100, false, `[1.50, -2e3, 12345678901234567890]`},
		{"strings escape only what JSON needs", `"<&> \u0001 \"q\""`, 100, false, `"<&> \u0001 \"q\""`},
		{"a string is cut at a rune boundary", `"ééééééééééééééééééééééééééééé"`, 30, false, `"ééééé…" /* 29 chars */`},
		{"a short string is never cut", `"abc"`, 1, false, `"abc"`},
		{"compact notes", `[1,2,3,4,5,6,7,8,9,10,11,12]`, 20, true, `[1,2,…/*10 more*/]`},
		{"an array shows its first element in detail", `[{"a":"xxxxxxxxxx","b":2},{"a":"y","b":3},{"a":"z","b":4}]`, 50, false,
			`[{a: "xxxxxxxxxx", b: 2}, … /* 2 more */]`},
		{"later elements only whole", `[{"a":"xxxxxxxxxx","b":2},{"a":"yyyyyyyyyyyyyyyyyyyy","b":3}]`, 45, false,
			`[{a: "xxxxxxxxxx", b: 2}, … /* 1 more */]`},
		{"a value too big for its budget is summarised", `[[1,2,3,4,5,6,7,8,9]]`, 10, false, `[[…]]`},
		{"a long string gives way to the keys", `{"a":"` + strings.Repeat("x", 50) + `","b":1,"c":2}`, 30, false, `{a: "…", b: 1, c: 2}`},
		{"an object notes the keys it leaves out", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}`, 30, false, `{a: 1, b: 2, … /* 6 more */}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := jsonv.Parse([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			got := NewRenderer(tc.compact, nil).Value(v, tc.budget)
			if want, prefix := strings.CutSuffix(tc.want, "…"); prefix && !strings.HasPrefix(got, want) || !prefix && got != tc.want {
				t.Errorf("Value(%s, %d) = %s, want %s", tc.value, tc.budget, got, tc.want)
			}
		})
	}
}

// TestRenderer_Hostile renders values that once took time exponential or
// quadratic in their depth: each must end within the renderer's steps.
func TestRenderer_Hostile(t *testing.T) {
	chain := strings.Repeat(`{"k1":1,"k2":"yy","z":`, 60) + `"` + strings.Repeat("x", 1000) + `"` + strings.Repeat("}", 60)
	deep := strings.Repeat("[", 2000) + `"` + strings.Repeat("x", 900_000) + `"` + strings.Repeat("]", 2000)
	for _, tc := range []struct {
		name, value string
		budget      int
		want        string
	}{
		{"60 nested objects, small budget", chain, 60, `{k1: 1, k2: "yy", z: {k1: 1, k2: "yy", z: {…}}}`},
		{"60 nested objects, large budget", chain, 3000, `{k1: 1, k2: "yy", z: {k1: 1, k2: "yy", z: {k1: 1,`},
		{"a long string 2000 arrays deep", deep, 800_000, `[[[[`},
		{"an empty string past the budget", `{"` + strings.Repeat("k", 40) + `":""}`, 30, `{kkkk`},
		{"a single long number", `[123456789012345678901234567890]`, 8, `[123456789012345678901234567890]`},
		{"a number of 3000 digits", `[` + strings.Repeat("7", 3000) + `]`, 10, `[7… /* 3000 digits */]`},
		{"a key of 3000 characters", `{"` + strings.Repeat("k", 3000) + `":1}`, 10, `{…}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := jsonv.Parse([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			steps := MaxSteps
			start := time.Now()
			got := NewRenderer(false, &steps).Value(v, tc.budget)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("rendering took %s", took)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("Value = %.200s, want it to start %s", got, tc.want)
			}
			if steps < -tc.budget {
				t.Errorf("the renderer overspent its steps: %d left", steps)
			}
		})
	}
}

func TestFairShares(t *testing.T) {
	if got, want := FairShares([]int{5, 100, 20, 100}, 105), []int{5, 40, 20, 40}; !slices.Equal(got, want) {
		t.Fatalf("FairShares = %v, want %v", got, want)
	}
}

func TestCounted(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 keys"}, {1, "1 key"}, {2, "2 keys"}, {5000, "5000 keys"}} {
		if got := counted(tc.n, "key"); got != tc.want {
			t.Errorf("counted(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
