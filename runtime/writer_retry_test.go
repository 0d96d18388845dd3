package runtime

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

// scriptedStore lets a test decide what each WriteJobs call does.
type scriptedStore struct {
	JobStore
	write func(rows []JobRow) ([]bool, error)
}

func (s *scriptedStore) WriteJobs(_ context.Context, rows []JobRow) ([]bool, error) {
	return s.write(rows)
}

// TestWriter_RetryNeverOvertakesANewerState: with two flushers, the newer
// state of a job can be taken by one flusher while the other is still
// settling the failed commit of the older state (inflight is cleared before
// onFlush and settle run). settle then queues the older row again, the
// newer commit fails too, and its settle finds the older row pending and
// takes it for "a later state": the newer state is dropped and the store
// ends with the older one (a job left STARTED for good, say).
func TestWriter_RetryNeverOvertakesANewerState(t *testing.T) {
	id := venue.JobID{1}
	v5 := &venue.Job{ID: id, Status: venue.StatusStarted, Version: 5}
	v6 := &venue.Job{ID: id, Status: venue.StatusComplete, Version: 6}

	var mu sync.Mutex
	up := false
	var last int64 // version of the last row applied
	v6InFlight := make(chan struct{})
	releaseV6 := make(chan struct{})
	st := &scriptedStore{write: func(rows []JobRow) ([]bool, error) {
		if rows[0].Version == 6 {
			select {
			case <-v6InFlight:
			default:
				close(v6InFlight)
				<-releaseV6
				return nil, errors.New("connection refused")
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if !up {
			return nil, errors.New("connection refused")
		}
		if rows[0].Version > last {
			last = rows[0].Version
		}
		return []bool{true}, nil
	}}
	firstFailure := true
	var w *writer
	onFlush := func(rows []JobRow, applied []bool, err error) []bool {
		if err == nil {
			return nil
		}
		if firstFailure && rows[0].Version == 5 {
			firstFailure = false
			// The job moves on as this commit's failure is being handled
			// (a transit under the job's lock, which flushed does not hold).
			w.put(v6, nil, false)
			select { // the other flusher takes v6 while this one settles, if it may
			case <-v6InFlight:
			case <-time.After(300 * time.Millisecond):
			}
		}
		return []bool{true} // a stored job: written again
	}
	w = newWriter(st, 2, func() int { return 0 }, onFlush, slog.New(slog.DiscardHandler))
	t5 := w.put(v5, nil, false)
	<-t5.done        // failed, and settled: v5 is queued again
	close(releaseV6) // now v6's commit fails too
	mu.Lock()
	up = true
	mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if last != 6 {
		t.Fatalf("the store holds version %d: the newer state (6, COMPLETE) was lost to a retry of the older", last)
	}
}
