package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/native"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/sql"
)

// slowOutageStore is an outageStore whose failing writes take a while, as
// a commit that fails on a full disk or a dropped connection does.
type slowOutageStore struct{ outageStore }

func (o *slowOutageStore) WriteJobs(ctx context.Context, rows []runtime.JobRow) ([]bool, error) {
	if o.down.Load() {
		time.Sleep(100 * time.Millisecond)
	}
	return o.outageStore.WriteJobs(ctx, rows)
}

// TestOutage_WaitedJobRunsOnlyOnceStored: once the store has refused a
// commit, an invoke with wait whose PENDING record the store refuses never
// runs its operation. It ran at once, before the record was durable, so an
// operation with an effect (an HTTP POST) took effect while its caller was
// told 503 "try again", with no record of the run: the retry ran it twice.
// The invoke that meets the first refused commit may have run (a healthy
// store's waited job starts before its lazy row is written); none after.
func TestOutage_WaitedJobRunsOnlyOnceStored(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := &slowOutageStore{outageStore{Store: st}}
	nat, err := native.Entries()
	if err != nil {
		t.Fatal(err)
	}
	tst, err := testops.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	execs := native.Executors()
	execs["test"] = runtime.OpFuncs{"echo": func(_ context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
		ran.Add(1)
		return in, nil
	}}
	cfg := runtime.Config{Catalog: append(nat, tst...), SingleNode: true, Flushers: st.FlushParallelism()}
	h := harnessOf(t, o, cfg, execs)
	o.down.Store(true)
	invoke := func() error {
		_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(`{"n": 1}`), Wait: time.Minute})
		return err
	}
	if err := invoke(); venue.ErrorCode(err) != venue.EUNAVAILABLE {
		t.Fatalf("invoke as the store goes away: %v, want 503", err)
	}
	time.Sleep(100 * time.Millisecond)
	before := ran.Load()
	for range 3 {
		if err := invoke(); venue.ErrorCode(err) != venue.EUNAVAILABLE {
			t.Fatalf("invoke while the store is away: %v, want 503", err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := ran.Load() - before; n != 0 {
		t.Fatalf("the operation ran %d times for invokes refused for want of a record", n)
	}
	o.down.Store(false)
	if j := h.invoke(t, "v/test/ops/echo", `{"n": 2}`, time.Minute); j.Status != venue.StatusComplete || ran.Load() != before+1 {
		t.Fatalf("after the outage: %s, ran %d", j.Status, ran.Load()-before)
	}
	// The store takes commits again: a waited job is lazy again, written once.
}

// TestOutage_WaitedStoredJobIsNamed: a waited invoke whose job was stored,
// but whose end the store refuses, names the job, which goes on and is
// written again: "try again" alone had the caller run it a second time.
func TestOutage_WaitedStoredJobIsNamed(t *testing.T) {
	h, o := outageEngine(t)
	type answer struct {
		j   *venue.Job
		err error
	}
	done := make(chan answer, 1)
	go func() {
		j, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/delay", Input: json.RawMessage(`{"ms": 300}`), Wait: time.Minute})
		done <- answer{j, err}
	}()
	var id venue.JobID
	deadline := time.Now().Add(5 * time.Second)
	for id == (venue.JobID{}) {
		if ids, _, err := h.Jobs(h.alice, 0, 10); err == nil && len(ids) == 1 {
			id = ids[0]
		} else if time.Now().After(deadline) {
			t.Fatal("the job never appeared")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.waitStatus(t, id, venue.StatusStarted)
	time.Sleep(50 * time.Millisecond) // STARTED is stored
	o.down.Store(true)
	a := <-done
	if venue.ErrorCode(a.err) != venue.EUNAVAILABLE || !strings.Contains(venue.ErrorMessage(a.err), id.String()) {
		t.Fatalf("answer %v %v, want 503 naming job %s", a.j, a.err, id)
	}
	o.down.Store(false)
}

// brokenContentStore stages content on a store whose writes fail with an
// error of its own (an I/O error), not a coded one.
type brokenContentStore struct{ *sql.Store }

type brokenUpload struct{ runtime.ContentUpload }

func (brokenUpload) Write([]byte) (int, error) {
	return 0, errors.New("stage content chunk: disk I/O error (10)")
}

func (b brokenContentStore) NewContent(ctx context.Context, sha [32]byte, owner string) (runtime.ContentUpload, error) {
	up, err := b.Store.NewContent(ctx, sha, owner)
	if err != nil {
		return nil, err
	}
	return brokenUpload{up}, nil
}

// TestEngine_ContentStoreFailureIsNotTheBodys: an upload the store fails to
// stage is the venue's failure, not a 400 blaming the caller's body
// ("reading the body failed") with the store's words in it.
func TestEngine_ContentStoreFailureIsNotTheBodys(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := mustEngineOn(t, brokenContentStore{st})
	content := bytes.Repeat([]byte("x"), 1000)
	id, err := h.RegisterAsset(h.alice, []byte(artifactMeta(content)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.PutContent(h.alice, id, bytes.NewReader(content))
	if err == nil || venue.ErrorCode(err) == venue.EINVALID || strings.Contains(venue.ErrorMessage(err), "reading the body") {
		t.Fatalf("a store that fails to stage: %v (code %s), want the venue's own failure", err, venue.ErrorCode(err))
	}
}
