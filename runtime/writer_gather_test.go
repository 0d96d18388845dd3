package runtime

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestWriter_GatherWaitsOnlyWhenItPays: beside unfinished jobs that bring
// no row (long runs, jobs waiting for their caller), one job after another
// is written without the flusher waiting for rows that never come, but for
// a few probes; rows arriving together are still gathered into batches.
func TestWriter_GatherWaitsOnlyWhenItPays(t *testing.T) {
	for _, tc := range []struct {
		name             string
		callers          int
		maxWaits         int64   // waits for more rows, at most
		minRowsPerCommit float64 // on average, at least
	}{
		{"one caller beside five long jobs", 1, 8, 1},
		{"eight callers at once", 8, 1 << 30, 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var commits, rows atomic.Int64
			st := &scriptedStore{write: func(batch []JobRow) ([]bool, error) {
				commits.Add(1)
				rows.Add(int64(len(batch)))
				return make([]bool, len(batch)), nil
			}}
			unfinished := func() int { return 5 + tc.callers }
			w := newWriter(st, 1, unfinished, func([]JobRow, []bool, error) []bool { return nil }, slog.New(slog.DiscardHandler))
			defer w.close()
			var wg sync.WaitGroup
			var next atomic.Uint64
			for range tc.callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 200 {
						id := venue.JobID{}
						n := next.Add(1)
						id[0], id[1] = byte(n), byte(n>>8)
						if err := w.put(&venue.Job{ID: id, Status: venue.StatusComplete}, nil, false).wait(context.Background()); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			per := float64(rows.Load()) / float64(commits.Load())
			t.Logf("%d rows in %d commits, %d waits", rows.Load(), commits.Load(), w.gatherWaits.Load())
			if waits := w.gatherWaits.Load(); waits > tc.maxWaits {
				t.Errorf("the flusher waited for more rows %d times, want at most %d", waits, tc.maxWaits)
			}
			if per < tc.minRowsPerCommit {
				t.Errorf("%.2f rows per commit, want at least %.2f", per, tc.minRowsPerCommit)
			}
		})
	}
}
