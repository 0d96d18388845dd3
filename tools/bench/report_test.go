package main

import "testing"

func TestRatioLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rounds []float64
		target float64
		about  string
		want   string
	}{
		{"one round, a target", []float64{0.49}, 0.5, "", "(a)/(c) = 0.49  (target ≥ 0.5)"},
		{"rounds, a target", []float64{0.47, 0.52, 0.5}, 0.5, "",
			"(a)/(c) = 0.49  (target ≥ 0.5; by round 0.47 0.52 0.50, 2 of 3 at or above)"},
		{"rounds, no target", []float64{1.1, 0.9}, 0, "this build against the baseline",
			"(a)/(c) = 0.49  (this build against the baseline; by round 1.10 0.90)"},
		{"nothing to add", nil, 0, "", "(a)/(c) = 0.49"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ratioLine("a", "c", 0.49, tc.rounds, tc.target, tc.about); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestPerRound(t *testing.T) {
	xs := []result{{rate: 10}, {rate: 20}, {rate: 30}}
	ys := []result{{rate: 20}, {rate: 0}} // a round y did not finish, and one it did not run
	got := perRound(xs, ys)
	if len(got) != 1 || got[0] != 0.5 {
		t.Fatalf("perRound = %v, want [0.5]", got)
	}
}
