package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"
)

func notifyInterrupt(ch chan os.Signal) { signal.Notify(ch, os.Interrupt) }

func report(rows []result, got map[string]*result, rounds map[string][]result) {
	fmt.Println("| run | requests | per second | p50 | p99 | server CPU per request | load generator CPU per request | note |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %s |\n", r.name, r.requests, r.rate, ms(r.p50), ms(r.p99), us(r.cpu), us(r.load), r.note)
	}
	fmt.Println()
	for _, q := range []struct {
		x, y   string
		target float64 // 0: none
		about  string
	}{
		{"a", "c", 0.5, ""},
		{"a", "a0", 0, "this build against the baseline"},
		{"b", "b0", 0, "this build against the baseline"},
		{"b", "c", 0, ""},
		{"b", "p", 1, "the venue on PostgreSQL records jobs at least as fast as pgbench inserts single rows"},
	} {
		if got[q.x] != nil && got[q.y] != nil {
			fmt.Println(ratioLine(q.x, q.y, got[q.x].rate/got[q.y].rate, perRound(rounds[q.x], rounds[q.y]), q.target, q.about))
		}
	}
}

// perRound is x's rate over y's in each round both ran: the rounds
// interleave the runs, so a slow spell of the machine lands on both sides
// of a round's ratio, which makes the spread of these a fairer measure of
// how settled a ratio is than the spread of either side's rates.
func perRound(xs, ys []result) []float64 {
	out := make([]float64, 0, min(len(xs), len(ys)))
	for i := range min(len(xs), len(ys)) {
		if ys[i].rate > 0 {
			out = append(out, xs[i].rate/ys[i].rate)
		}
	}
	return out
}

// ratioLine words one ratio of medians, with its target and, over several
// rounds, the round-by-round ratios and how many of them met the target.
func ratioLine(x, y string, med float64, rounds []float64, target float64, about string) string {
	var notes []string
	if target > 0 {
		notes = append(notes, fmt.Sprintf("target ≥ %g", target))
	}
	if about != "" {
		notes = append(notes, about)
	}
	if len(rounds) > 1 {
		each := make([]string, len(rounds))
		met := 0
		for i, r := range rounds {
			each[i] = fmt.Sprintf("%.2f", r)
			if r >= target {
				met++
			}
		}
		n := "by round " + strings.Join(each, " ")
		if target > 0 {
			n += fmt.Sprintf(", %d of %d at or above", met, len(rounds))
		}
		notes = append(notes, n)
	}
	line := fmt.Sprintf("(%s)/(%s) = %.2f", x, y, med)
	if len(notes) > 0 {
		line += "  (" + strings.Join(notes, "; ") + ")"
	}
	return line
}

func us(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000)
}

func ms(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
