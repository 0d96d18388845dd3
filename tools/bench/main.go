// Command bench measures invoke throughput end to end, in one run, side by
// side: the venue on SQLite, the venue on PostgreSQL, a bare net/http
// handler answering the same JSON, and pgbench's single-row inserts on the
// same PostgreSQL. Each server runs in its own process; the load comes from
// this one, over loopback, with keep-alive connections.
//
//	go run ./tools/bench [-c 32] [-d 10s] [-op v/test/ops/echo] [-postgres DSN]
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

type options struct {
	clients  int
	duration time.Duration
	warmup   time.Duration
	op       string
	input    string
	postgres string
	venued   string
	only     string
	profile  string
	repeat   int
	client   string
	baseline string // another venued binary, run as (a0) beside (a)
}

// wants reports whether run r ("a", "b", "c" or "p") was asked for; the
// baseline runs (a0, b0) go with (a) and (b).
func (o options) wants(r string) bool {
	if r == "a0" || r == "b0" {
		return o.baseline != "" && o.wants(r[:1])
	}
	return o.only == "" || strings.Contains(o.only, r)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare" {
		serveBare(os.Args[2])
		return
	}
	var o options
	flag.IntVar(&o.clients, "c", 32, "concurrent clients")
	flag.DurationVar(&o.duration, "d", 10*time.Second, "measured duration of each run")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured load before each run")
	flag.StringVar(&o.op, "op", "v/test/ops/echo", "operation to invoke")
	flag.StringVar(&o.input, "input", `{"n":1,"greeting":"hello"}`, "its input")
	flag.StringVar(&o.postgres, "postgres", defaultPostgres(), "PostgreSQL DSN for (b) and pgbench; empty skips them")
	flag.StringVar(&o.client, "client", "raw", "load generator: raw (minimal HTTP/1.1, like wrk) or go (net/http's client)")
	flag.IntVar(&o.repeat, "n", 3, "rounds; each round makes every run once, and the report gives each run's median round")
	flag.StringVar(&o.profile, "profile", "", "save a CPU profile of each venue run to <prefix>-<run>.pprof")
	flag.StringVar(&o.only, "only", "", "runs to make, e.g. \"ab\" (default all: a, b, c and p)")
	flag.StringVar(&o.baseline, "baseline", "", "a venued binary of an earlier build, run as (a0) and (b0) in the same rounds as (a) and (b)")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func defaultPostgres() string {
	for _, k := range []string{"VENUE_BENCH_POSTGRES", "VENUE_TEST_POSTGRES"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func run(ctx context.Context, o options) error {
	bin, cleanup, err := buildVenued()
	if err != nil {
		return err
	}
	defer cleanup()
	o.venued = bin
	fmt.Printf("%d %s clients, %s per run after %s warm-up, operation %s, GOMAXPROCS=%d on %d CPUs\n\n",
		o.clients, o.client, o.duration, o.warmup, o.op, maxProcs(), numCPU())
	runs := []struct {
		key string
		pg  bool
		fn  func(context.Context, options) (result, error)
	}{
		{"a", false, func(ctx context.Context, o options) (result, error) {
			return benchVenue(ctx, o, "(a) venue, SQLite", "")
		}},
		{"a0", false, func(ctx context.Context, o options) (result, error) {
			o.venued = o.baseline
			return benchVenue(ctx, o, "(a0) baseline venue, SQLite", "")
		}},
		{"b", true, func(ctx context.Context, o options) (result, error) {
			return benchVenuePostgres(ctx, o, "(b) venue, PostgreSQL")
		}},
		{"b0", true, func(ctx context.Context, o options) (result, error) {
			o.venued = o.baseline
			return benchVenuePostgres(ctx, o, "(b0) baseline venue, PostgreSQL")
		}},
		{"c", false, benchBare},
		{"p", true, benchPgbench},
	}
	// Rounds interleave the runs, so a slow spell of the machine lands on
	// one round of each rather than on every round of one.
	rounds := map[string][]result{}
	for round := 1; round <= max(1, o.repeat); round++ {
		for _, r := range runs {
			if !o.wants(r.key) || (r.pg && o.postgres == "") {
				continue
			}
			res, err := r.fn(ctx, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "round %d: %s %.0f/s\n", round, res.name, res.rate)
			rounds[r.key] = append(rounds[r.key], res)
		}
	}
	got := map[string]*result{}
	var results []result
	for _, r := range runs {
		if rs := rounds[r.key]; len(rs) > 0 {
			m := median(rs)
			got[r.key] = &m
			results = append(results, m)
		}
	}
	report(results, got, rounds)
	return nil
}

// median returns the round with the median rate, noting the spread.
func median(rs []result) result {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b result) int { return cmp.Compare(a.rate, b.rate) })
	m := sorted[len(sorted)/2]
	if len(sorted) > 1 {
		spread := fmt.Sprintf("median of %d rounds (%.0f–%.0f/s)", len(sorted), sorted[0].rate, sorted[len(sorted)-1].rate)
		m.note = strings.TrimPrefix(m.note+"; "+spread, "; ")
	}
	return m
}
