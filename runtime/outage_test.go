package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// outageStore fails every WriteJobs while down is set, as a PostgreSQL
// that went away does.
type outageStore struct {
	*sql.Store
	down atomic.Bool
}

func (o *outageStore) WriteJobs(ctx context.Context, rows []runtime.JobRow) ([]bool, error) {
	if o.down.Load() {
		// As the store words it (sql.wrap): unavailable, its cause below.
		return nil, fmt.Errorf("%w: write jobs: %w", venue.Errorf(venue.EUNAVAILABLE, "The venue's store cannot be reached; try again shortly"),
			errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"))
	}
	return o.Store.WriteJobs(ctx, rows)
}

func outageEngine(t *testing.T) (*harness, *outageStore) {
	t.Helper()
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := &outageStore{Store: st}
	return mustEngineOn(t, o), o
}

// TestOutage_StoredJobsReachTheStore: the end of a job whose record was
// stored, reached while the store is away, is stored once it is back (it
// stayed STARTED for good, while the node answered COMPLETE); and when the
// store stays away past the close, the close says what it could not store.
func TestOutage_StoredJobsReachTheStore(t *testing.T) {
	t.Run("the store comes back", func(t *testing.T) {
		h, o := outageEngine(t)
		j := h.invoke(t, "v/test/ops/delay", `{"ms": 300}`, 0)
		h.waitStatus(t, j.ID, venue.StatusStarted)
		time.Sleep(50 * time.Millisecond) // STARTED is stored
		o.down.Store(true)
		h.waitStatus(t, j.ID, venue.StatusComplete) // in memory
		time.Sleep(300 * time.Millisecond)          // some writes fail
		o.down.Store(false)
		deadline := time.Now().Add(10 * time.Second)
		for {
			row, err := o.Store.Job(context.Background(), j.ID)
			if err == nil && row.Status == venue.StatusComplete {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the store keeps %s after the outage, while this node answered COMPLETE", row.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if c := h.HeldCounts(); c.Active != 0 || c.HeldJobs != 0 {
			t.Fatalf("held after the end was stored: %+v", c)
		}
	})
	t.Run("the store stays away", func(t *testing.T) {
		h, o := outageEngine(t)
		j := h.invoke(t, "v/test/ops/delay", `{"ms": 100}`, 0)
		h.waitStatus(t, j.ID, venue.StatusStarted)
		time.Sleep(50 * time.Millisecond)
		o.down.Store(true)
		h.waitStatus(t, j.ID, venue.StatusComplete)
		start := time.Now()
		err := h.Close()
		if err == nil || !errContains(err, "1 job records could not be stored") {
			t.Fatalf("close: %v, want it to say what it could not store", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("close took %s", d)
		}
	})
}

// TestOutage_WaitedJobsNeverStoredAreLetGo: invokes with wait answered 503
// because their records could not be stored leave nothing held (an
// outage left 29,000 such jobs in memory), and the next invokes after the
// store is back run as ever.
func TestOutage_WaitedJobsNeverStoredAreLetGo(t *testing.T) {
	h, o := outageEngine(t)
	o.down.Store(true)
	for range 20 {
		_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(`{"n": 1}`), Wait: time.Minute})
		if venue.ErrorCode(err) != venue.EUNAVAILABLE || strings.Contains(venue.ErrorMessage(err), "5432") {
			t.Fatalf("invoke while the store is away: %v, want 503 not naming the store's address", err)
		}
	}
	if c := h.HeldCounts(); c.Active != 0 || c.HeldJobs != 0 || c.Unfinished != 0 {
		t.Fatalf("held after the refused invokes: %+v", c)
	}
	o.down.Store(false)
	if j := h.invoke(t, "v/test/ops/echo", `{"n": 2}`, time.Minute); j.Status != venue.StatusComplete {
		t.Fatalf("after the outage: %s", j.Status)
	}
}

func errContains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }
