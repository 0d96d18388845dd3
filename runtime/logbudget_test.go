package runtime

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// logStep writes n lines as did, after moving the clock on.
type logStep struct {
	did   string
	after time.Duration
	n     int
}

func TestLogBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []logStep
		want  []int // lines allowed at each step
		warns []int // the dropped lines each warning reports
	}{
		{"a burst, then nothing", []logStep{{"a", 0, 1500}}, []int{1000}, []int{1}},
		{"refills at the rate", []logStep{{"a", 0, 1000}, {"a", time.Second, 150}}, []int{1000, 100}, []int{1}},
		{"drops reported once a minute", []logStep{{"a", 0, 1010}, {"a", time.Second, 110}, {"a", time.Minute, 6001}},
			[]int{1000, 100, 1000}, []int{1, 20}},
		{"never past the burst", []logStep{{"a", 0, 10}, {"a", time.Hour, 2000}}, []int{10, 1000}, []int{1}},
		{"callers apart", []logStep{{"a", 0, 1500}, {"b", 0, 1500}}, []int{1000, 1000}, []int{1, 1}},
		{"a clock stepping back takes nothing", []logStep{{"a", 0, 1000}, {"a", -time.Hour, 5}}, []int{1000, 0}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b logBudget
			now := time.Unix(1_000_000, 0)
			var warns []int
			for i, s := range tc.steps {
				now = now.Add(s.after)
				got := 0
				for range s.n {
					ok, dropped := b.allow(s.did, now)
					if ok {
						got++
					}
					if dropped > 0 {
						warns = append(warns, dropped)
					}
				}
				if got != tc.want[i] {
					t.Fatalf("step %d: %d lines allowed, want %d", i, got, tc.want[i])
				}
			}
			if !slices.Equal(warns, tc.warns) {
				t.Fatalf("warnings of %v dropped lines, want %v", warns, tc.warns)
			}
		})
	}
}

func TestLogBudget_ForgetsRefilledCallers(t *testing.T) {
	var b logBudget
	now := time.Unix(1_000_000, 0)
	for i := range maxLogBuckets {
		b.allow(fmt.Sprint("did:", i), now)
	}
	b.allow("did:busy", now.Add(time.Minute))
	if len(b.callers) != 1 {
		t.Fatalf("%d callers kept, want only the new one (the others have refilled)", len(b.callers))
	}
}
