package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/sql/sqltest"
)

// slowStore is a node's store whose job writes (of rows past version 1)
// and job reads can be made slow, as a loaded Postgres or a backlog of
// notes makes them: the timing the tests below need, made certain.
type slowStore struct {
	*sql.Store
	writeDelay atomic.Int64 // ns; rows of version >= 2 only
	readDelay  atomic.Int64 // ns
}

func (s *slowStore) WriteJobs(ctx context.Context, rows []runtime.JobRow) ([]bool, error) {
	if d := time.Duration(s.writeDelay.Load()); d > 0 {
		for _, r := range rows {
			if r.Version >= 2 {
				time.Sleep(d)
				break
			}
		}
	}
	return s.Store.WriteJobs(ctx, rows)
}

func (s *slowStore) Job(ctx context.Context, id venue.JobID) (runtime.JobRow, error) {
	if d := time.Duration(s.readDelay.Load()); d > 0 {
		time.Sleep(d)
	}
	return s.Store.Job(ctx, id)
}

// twoNodes opens two engines on one fresh Postgres schema; a's store is slowable.
func twoNodes(t *testing.T) (a, b *harness, slow *slowStore) {
	t.Helper()
	open := sharedPostgres(t)
	slow = &slowStore{Store: open()}
	a = mustEngineOn(t, slow)
	b = mustEngineOn(t, open())
	return a, b, slow
}

// sharedPostgres makes a fresh Postgres schema and returns what opens a
// store on it, one per node, closed when the test ends.
func sharedPostgres(t *testing.T) func() *sql.Store {
	t.Helper()
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	return func() *sql.Store {
		st, err := sql.Open(context.Background(), dsn, sql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
}

// TestRace_DeletedJobComesBack: a job running on node A is cancelled and
// then deleted on node B. If A reads the store for B's note only after the
// delete, it finds nothing, keeps running the job, and its next write
// inserts the row again: the cancel is lost, the job runs to its end, and a
// deleted job is back in the caller's list.
func TestRace_DeletedJobComesBack(t *testing.T) {
	a, b, slow := twoNodes(t)
	j := a.invoke(t, "v/test/ops/delay", `{"ms": 1500}`, 0)
	b.waitStatus(t, j.ID, venue.StatusStarted)
	slow.readDelay.Store(int64(300 * time.Millisecond)) // A hears of the cancel late
	if got, err := b.Cancel(b.alice, j.ID); err != nil || got.Status != venue.StatusCancelled {
		t.Fatalf("cancel on b: %v %v", got, err)
	}
	if err := b.DeleteJob(b.alice, j.ID); err != nil {
		t.Fatalf("delete on b: %v", err)
	}
	time.Sleep(2500 * time.Millisecond)
	slow.readDelay.Store(0)
	if got, err := b.Job(b.alice, j.ID); venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Fatalf("the job deleted on b is back: %v (chain %v), err %v", got.Status, statuses(got), err)
	}
}

// TestRace_PauseOnOtherNodeLost: node B pauses a job (200, PAUSED v2) that
// node A runs and has moved on twice in memory (STARTED v2 lazily, then
// INPUT_REQUIRED v3, one write). A's v3 replaces B's v2: the store's rule
// (greater version, not terminal) cannot tell a successor from a rival.
// The pause answered PAUSED is gone from the record, the job never paused,
// and a resume now answers 409.
func TestRace_PauseOnOtherNodeLost(t *testing.T) {
	a, b, slow := twoNodes(t)
	slow.writeDelay.Store(int64(300 * time.Millisecond))
	j := a.invoke(t, "v/test/ops/ask", `{}`, 0) // PENDING v1 is written at once
	got, err := b.Pause(b.alice, j.ID)
	if err != nil || got.Status != venue.StatusPaused {
		t.Fatalf("pause on b: %v %v", got, err)
	}
	time.Sleep(time.Second)
	slow.writeDelay.Store(0)
	for _, h := range []*harness{a, b} {
		rec, err := h.Job(h.alice, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != venue.StatusPaused {
			t.Errorf("pause answered PAUSED, but the job is %s, chain %v", rec.Status, statuses(rec))
		}
	}
	if _, err := b.Resume(b.alice, j.ID); err != nil {
		t.Errorf("resume of the job paused: %v", err)
	}
}

// TestRace_CrossNodeNoDelays runs the two races above with no delay put in,
// many jobs at once: the ordinary timing of two nodes loses pauses (and,
// less often, brings deleted jobs back).
func TestRace_CrossNodeNoDelays(t *testing.T) {
	a, b, _ := twoNodes(t)
	const n = 40
	type res struct {
		pauseLost, back bool
		msg             string
	}
	out := make(chan res, 2*n)
	for i := 0; i < n; i++ {
		go func() {
			j := a.invoke(t, "v/test/ops/ask", `{}`, 0)
			p, err := b.Pause(b.alice, j.ID)
			if err != nil || p.Status != venue.StatusPaused {
				out <- res{} // the pause judged the job moved on: fair
				return
			}
			time.Sleep(500 * time.Millisecond)
			rec, _ := b.Job(b.alice, j.ID)
			out <- res{pauseLost: rec.Status != venue.StatusPaused, msg: string(rec.Status)}
		}()
		go func() {
			j := a.invoke(t, "v/test/ops/delay", `{"ms": 400}`, 0)
			b.waitStatus(t, j.ID, venue.StatusStarted)
			if _, err := b.Cancel(b.alice, j.ID); err != nil {
				out <- res{msg: err.Error()}
				return
			}
			if err := b.DeleteJob(b.alice, j.ID); err != nil {
				out <- res{msg: err.Error()}
				return
			}
			time.Sleep(time.Second)
			_, err := b.Job(b.alice, j.ID)
			out <- res{back: venue.ErrorCode(err) != venue.ENOTFOUND}
		}()
	}
	lost, back := 0, 0
	for i := 0; i < 2*n; i++ {
		r := <-out
		if r.pauseLost {
			lost++
		}
		if r.back {
			back++
		}
	}
	if lost > 0 || back > 0 {
		t.Fatalf("of %d pauses on b answered PAUSED, %d were lost; of %d jobs deleted on b, %d came back", n, lost, n, back)
	}
}

// TestRace_DeletedWhileRowInFlight: node A's flush holds the last row of a
// job it stored before (here its COMPLETE, the commit held up) while node
// B cancels and deletes that job. A's row, landing after the delete, must
// not insert the job again: a job already stored is only ever replaced.
func TestRace_DeletedWhileRowInFlight(t *testing.T) {
	a, b, slow := twoNodes(t)
	j := a.invoke(t, "v/test/ops/delay", `{"ms": 300}`, 0)
	b.waitStatus(t, j.ID, venue.StatusStarted)
	slow.writeDelay.Store(int64(time.Second))
	a.waitStatus(t, j.ID, venue.StatusComplete) // in A's memory; its commit waits
	if got, err := b.Cancel(b.alice, j.ID); err != nil || got.Status != venue.StatusCancelled {
		t.Fatalf("cancel on b: %v %v", got, err)
	}
	if err := b.DeleteJob(b.alice, j.ID); err != nil {
		t.Fatalf("delete on b: %v", err)
	}
	time.Sleep(1500 * time.Millisecond)
	slow.writeDelay.Store(0)
	for name, h := range map[string]*harness{"a": a, "b": b} {
		if got, err := h.Job(h.alice, j.ID); venue.ErrorCode(err) != venue.ENOTFOUND {
			t.Errorf("on %s the job deleted on b is back: %v, err %v", name, got, err)
		}
	}
}

// TestRace_CommandOnStaleCopy: node B pauses (or cancels) a job node A
// runs, and the caller's next command goes to A before A has heard of it.
// A judged the command on its own copy (STARTED): a resume of the job B
// answered PAUSED got 409 "it is STARTED, not PAUSED", and a delete of the
// job B answered CANCELLED got 409 "cancel it before deleting it".
func TestRace_CommandOnStaleCopy(t *testing.T) {
	a, b, slow := twoNodes(t)
	j := a.invoke(t, "v/test/ops/delay", `{"ms": 3000}`, 0)
	b.waitStatus(t, j.ID, venue.StatusStarted)
	slow.readDelay.Store(int64(300 * time.Millisecond)) // A hears of B's commands late
	if got, err := b.Pause(b.alice, j.ID); err != nil || got.Status != venue.StatusPaused {
		t.Fatalf("pause on b: %v %v", got, err)
	}
	if got, err := a.Resume(a.alice, j.ID); err != nil || got.Status != venue.StatusStarted {
		t.Fatalf("resume on a of the job b paused: %v %v", got, err)
	}
	slow.readDelay.Store(0)

	k := a.invoke(t, "v/test/ops/delay", `{"ms": 3000}`, 0)
	b.waitStatus(t, k.ID, venue.StatusStarted)
	slow.readDelay.Store(int64(300 * time.Millisecond))
	if got, err := b.Cancel(b.alice, k.ID); err != nil || got.Status != venue.StatusCancelled {
		t.Fatalf("cancel on b: %v %v", got, err)
	}
	if err := a.DeleteJob(a.alice, k.ID); err != nil {
		t.Fatalf("delete on a of the job b cancelled: %v", err)
	}
	slow.readDelay.Store(0)
	time.Sleep(500 * time.Millisecond)
	if _, err := b.Job(b.alice, k.ID); venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Fatalf("deleted job still there: %v", err)
	}
}
