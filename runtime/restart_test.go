package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/sql/sqltest"
)

// openFile opens a durable store: a SQLite file path or a Postgres DSN.
func openFile(t *testing.T, dsn string) *sql.Store {
	t.Helper()
	st, err := sql.Open(context.Background(), dsn, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// durableStores are the stores a restart keeps: a SQLite file, and Postgres
// (in a fresh schema, so no other test's key is there) when configured.
func durableStores(t *testing.T) []sqltest.Store {
	stores := []sqltest.Store{{Name: "sqlite", DSN: filepath.Join(t.TempDir(), "venue.db")}}
	if dsn := sqltest.PostgresDSN(t, false); dsn != "" {
		stores = append(stores, sqltest.Store{Name: "postgres", DSN: sqltest.FreshSchema(t, dsn)})
	}
	return stores
}

func TestEngine_DurableStoreKeepsIdentityAndJobs(t *testing.T) {
	for _, ds := range durableStores(t) {
		t.Run(ds.Name, func(t *testing.T) {
			st := openFile(t, ds.DSN)
			h := mustEngineOn(t, st)
			did, key := h.Identity().DID, h.Identity().Key
			job := h.invoke(t, "v/test/ops/echo", `{"keep": true}`, time.Minute)
			h.Close()
			st.Close()

			st = openFile(t, ds.DSN)
			defer st.Close()
			h = mustEngineOn(t, st)
			if h.Identity().DID != did || !h.Identity().Key.Equal(key) {
				t.Fatal("the venue key changed across a restart")
			}
			if got, err := h.Job(h.alice, job.ID); err != nil || string(got.Output) != `{"keep":true}` {
				t.Fatalf("job after restart: %v %v", got, err)
			}
		})
	}
}

// leftStarted stores the record of alice's job id as a venue that stopped
// while it ran would have left it: STARTED.
func leftStarted(t *testing.T, st runtime.Store, id venue.JobID) *venue.Job {
	t.Helper()
	rec := &venue.Job{ID: id, Status: venue.StatusStarted, Created: 1, Updated: 2,
		Operation: "v/test/ops/never", Caller: "did:key:alice", Version: 2}
	row := runtime.JobRow{ID: rec.ID, Owner: rec.Caller, Status: rec.Status, Version: 2, Created: 1, Updated: 2, Record: rec.AppendJSON(nil)}
	if _, err := st.WriteJobs(context.Background(), []runtime.JobRow{row}); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestEngine_RestartFailsJobsLeftUnfinished(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	st := openFile(t, path)
	rec := leftStarted(t, st, venue.JobID{0, 0, 0, 0, 0, 1}) // as a crashed venue left it
	st.Close()
	st = openFile(t, path)
	defer st.Close()
	h := mustEngineOn(t, st)
	got, err := h.Job(h.alice, rec.ID)
	if err != nil || got.Status != venue.StatusFailed || got.Error != "The venue restarted before the job finished" {
		t.Fatalf("got %v %v", got, err)
	}
	if got.Prev == nil || got.Prev.Status != venue.StatusStarted {
		t.Fatal("the failure did not keep the STARTED state in prev")
	}
}

func TestEngine_ConfiguredSeedSetsTheKey(t *testing.T) {
	seed := make([]byte, 32)
	seed[0] = 7
	a := mustEngine(t, func(c *runtime.Config) { c.Seed = seed })
	b := mustEngine(t, func(c *runtime.Config) { c.Seed = seed })
	if !a.Identity().Key.Equal(b.Identity().Key) {
		t.Fatal("the same seed gave two keys")
	}
}

// countingStore counts the transactions the engine's writer makes.
type countingStore struct {
	*sql.Store
	calls, rows atomic.Int64
}

func (c *countingStore) WriteJobs(ctx context.Context, rows []runtime.JobRow) ([]bool, error) {
	c.calls.Add(1)
	c.rows.Add(int64(len(rows)))
	return c.Store.WriteJobs(ctx, rows)
}

func TestEngine_GroupCommitsJobRecords(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := &countingStore{Store: st}
	h := mustEngineOn(t, cs)
	const n = 400
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			j, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(`{}`), Wait: time.Minute})
			if err != nil || j.Status != venue.StatusComplete {
				t.Errorf("invoke: %v %v", j, err)
			}
		})
	}
	wg.Wait()
	calls, rows := cs.calls.Load(), cs.rows.Load()
	t.Logf("%d jobs, 3 states each: %d rows in %d transactions", n, rows, calls)
	if calls >= n {
		t.Fatalf("%d transactions for %d concurrent jobs: records are not group-committed", calls, n)
	}
	if _, total, _ := h.Jobs(h.alice, 0, 0); total != n {
		t.Fatalf("%d jobs stored, want %d", total, n)
	}
}

// TestEngine_CloseRecordsHowJobsEnded: a venue stopped cleanly records the
// jobs it was running, or had waiting for a worker, as FAILED saying why,
// rather than leaving them STARTED (on PostgreSQL no restart would ever
// fail them); a paused job stays PAUSED for a resume elsewhere.
func TestEngine_CloseRecordsHowJobsEnded(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Workers = 1 })
	asking := h.invoke(t, "v/test/ops/ask", `{}`, 0)
	h.waitStatus(t, asking.ID, venue.StatusInputRequired)
	paused := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, paused.ID, venue.StatusStarted)
	if _, err := h.Pause(h.alice, paused.ID); err != nil {
		t.Fatal(err)
	}
	running := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, running.ID, venue.StatusStarted)
	waiting := h.invoke(t, "v/test/ops/echo", `{}`, 0) // the only worker is taken
	h.Close()
	for _, tc := range []struct {
		name      string
		id        venue.JobID
		status    venue.JobStatus
		wantError string
	}{
		{"running", running.ID, venue.StatusFailed, "The venue shut down while the job was running"},
		{"waiting for a worker", waiting.ID, venue.StatusFailed, "The venue shut down before the job started"},
		{"waiting for a reply", asking.ID, venue.StatusFailed, "The venue shut down while the job was running"},
		{"paused", paused.ID, venue.StatusPaused, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row, err := h.store.Job(context.Background(), tc.id)
			if err != nil {
				t.Fatal(err)
			}
			var rec venue.Job
			if err := json.Unmarshal(row.Record, &rec); err != nil || rec.Status != tc.status || rec.Error != tc.wantError {
				t.Fatalf("stored %s %q (%v), want %s %q", rec.Status, rec.Error, err, tc.status, tc.wantError)
			}
		})
	}
}

// TestEngine_RestartFailsUnreadableJobs: a record no JSON reader takes (one
// nested past encoding/json's 10000 levels, as unbounded prev chains once
// made) does not keep a durable venue from starting: its job is failed from
// what its row says.
// fullStore is a store on a full disk: no job record can be written.
type fullStore struct{ *sql.Store }

func (fullStore) WriteJobs(context.Context, []runtime.JobRow) ([]bool, error) {
	return nil, errors.New("write 1 jobs: database or disk is full (13)")
}

// TestEngine_RestartOnAFullDisk checks that a venue whose disk is full
// still starts, to serve the reads and deletes that free space, and leaves
// the jobs the last run left unfinished for the next start to fail.
func TestEngine_RestartOnAFullDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	st := openFile(t, path)
	rec := leftStarted(t, st, venue.JobID{0, 0, 0, 0, 0, 3})
	h := mustEngineOn(t, fullStore{st})
	if got, err := h.Job(h.alice, rec.ID); err != nil || got.Status != venue.StatusStarted {
		t.Fatalf("on the full disk: %v %v, want the job left STARTED", got, err)
	}
	h.Close()
	h = mustEngineOn(t, st)
	if got, err := h.Job(h.alice, rec.ID); err != nil || got.Status != venue.StatusFailed {
		t.Fatalf("once it can be written: %v %v, want FAILED", got, err)
	}
	st.Close()
}

func TestEngine_RestartFailsUnreadableJobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	st := openFile(t, path)
	id := venue.JobID{0, 0, 0, 0, 0, 2}
	deep := `{"id":"` + id.String() + `","status":"STARTED","created":1,"updated":2,"caller":"did:key:alice","prev":` +
		strings.Repeat(`{"status":"PAUSED","prev":`, 10001) + `null` + strings.Repeat("}", 10001) + `}`
	row := runtime.JobRow{ID: id, Owner: "did:key:alice", Status: venue.StatusStarted, Version: 2, Created: 1, Updated: 2, Record: []byte(deep)}
	if _, err := st.WriteJobs(context.Background(), []runtime.JobRow{row}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openFile(t, path)
	defer st.Close()
	h := mustEngineOn(t, st)
	got, err := h.Job(h.alice, id)
	if err != nil || got.Status != venue.StatusFailed {
		t.Fatalf("got %v %v", got, err)
	}
}

// TestEngine_RestartKeepsPausedJobs checks that a job paused on a durable
// single-node venue can be resumed after a restart: a paused job holds no
// execution, and a resume starts one from the record. A paused job whose
// record hides part of its input fails at the restart, saying why.
func TestEngine_RestartKeepsPausedJobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	st := openFile(t, path)
	h := mustEngineOn(t, st)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 50, "value": "after"}`, 0)
	h.waitStatus(t, j.ID, venue.StatusStarted)
	if _, err := h.Pause(h.alice, j.ID); err != nil {
		t.Fatal(err)
	}
	// A paused record whose URL user info the record hides.
	hidden := &venue.Job{ID: venue.JobID{0, 0, 0, 0, 0, 2}, Status: venue.StatusPaused, Created: 1, Updated: 2,
		Operation: "v/test/ops/delay", Caller: "did:key:alice", Version: 3,
		Input: json.RawMessage(`{"value":"https://` + runtime.Hidden + `@example.com/"}`)}
	row := runtime.JobRow{ID: hidden.ID, Owner: hidden.Caller, Status: hidden.Status, Version: 3, Created: 1, Updated: 2,
		Record: hidden.AppendJSON(nil)}
	// Paused records of an operation with a secret field: one without it
	// hides nothing, one with it hides its value.
	plain, secret := pausedRow(venue.JobID{0, 0, 0, 0, 0, 3}, `{"n":1}`), pausedRow(venue.JobID{0, 0, 0, 0, 0, 4}, `{"secret":"HIDDEN"}`)
	if _, err := st.WriteJobs(context.Background(), []runtime.JobRow{row, plain, secret}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddJobMessage(context.Background(), secret.ID, []byte(`{"unread":true}`)); err != nil {
		t.Fatal(err)
	}
	h.Close()
	st.Close()

	st = openFile(t, path)
	defer st.Close()
	h = mustEngineOn(t, st)
	if got, err := h.Job(h.alice, plain.ID); err != nil || got.Status != venue.StatusPaused {
		t.Fatalf("paused job that gave no secret field, after the restart: %v %v", got, err)
	}
	if got, err := h.Job(h.alice, secret.ID); err != nil || got.Status != venue.StatusFailed || !strings.HasSuffix(got.Error, "its secret inputs are kept only by the node that started it") {
		t.Fatalf("paused job that gave a secret field, after the restart: %v %v", got, err)
	}
	if got, err := h.Job(h.alice, j.ID); err != nil || got.Status != venue.StatusPaused {
		t.Fatalf("paused job after the restart: %v %v", got, err)
	}
	if got, err := h.Resume(h.alice, j.ID); err != nil || got.Status != venue.StatusStarted {
		t.Fatalf("resume after the restart: %v %v", got, err)
	}
	// A reply to a paused job no node holds, then a cancel: the reply goes
	// with the job, as does the one the restart's failure left.
	if _, err := h.Reply(h.alice, plain.ID, json.RawMessage(`{"unread":true}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := h.Cancel(h.alice, plain.ID); err != nil || got.Status != venue.StatusCancelled {
		t.Fatalf("cancel of a paused job after the restart: %v %v", got, err)
	}
	done := h.waitStatus(t, j.ID, venue.StatusComplete)
	if string(done.Output) != `{"slept":50,"value":"after"}` {
		t.Fatalf("resumed job output %s", done.Output)
	}
	h.Close() // waits for the drops of ended jobs' replies
	for _, id := range []venue.JobID{plain.ID, secret.ID} {
		if msg, err := st.TakeJobMessage(context.Background(), id); err != nil || msg != nil {
			t.Errorf("job %s ended with a reply still queued: %s %v", id, msg, err)
		}
	}
	got, err := h.Job(h.alice, hidden.ID)
	const want = "The venue restarted while the job was paused, and the job cannot resume from its record: its input held a URL's user info"
	if err != nil || got.Status != venue.StatusFailed || !strings.HasPrefix(got.Error, want) {
		t.Fatalf("paused job with a hidden password after the restart: %v %v", got, err)
	}
}

// pausedRow is the row of a PAUSED test:echo job of alice's with input.
func pausedRow(id venue.JobID, input string) runtime.JobRow {
	rec := &venue.Job{ID: id, Status: venue.StatusPaused, Created: 1, Updated: 2,
		Operation: "v/test/ops/echo", Caller: "did:key:alice", Version: 3, Input: json.RawMessage(input)}
	return runtime.JobRow{ID: id, Owner: rec.Caller, Status: rec.Status, Version: 3, Created: 1, Updated: 2, Record: rec.AppendJSON(nil)}
}
