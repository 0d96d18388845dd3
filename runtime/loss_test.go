package runtime_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestLoss_InvokeAfterStop: between Engine.Stop and Engine.Close (the
// agents' Drain, up to 5 s; HTTP requests still draining) an invoke or a
// resume would hand out a job nothing runs or settles any more (Stop's
// settleAtShutdown has run): both are refused, and what was paused stays
// PAUSED across the restart.
func TestLoss_InvokeAfterStop(t *testing.T) {
	for _, ds := range durableStores(t) {
		t.Run(ds.Name, func(t *testing.T) {
			st := openFile(t, ds.DSN)
			h := mustEngineOn(t, st)
			paused := h.invoke(t, "v/test/ops/delay", `{"ms": 60000}`, 0)
			h.waitStatus(t, paused.ID, venue.StatusStarted)
			if _, err := h.Pause(h.alice, paused.ID); err != nil {
				t.Fatal(err)
			}
			h.Stop()
			if _, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: []byte(`{"x":1}`)}); venue.ErrorCode(err) != venue.EUNAVAILABLE {
				t.Errorf("invoke after Stop: %v, want it refused as unavailable", err)
			}
			if _, err := h.Resume(h.alice, paused.ID); venue.ErrorCode(err) != venue.EUNAVAILABLE {
				t.Errorf("resume after Stop: %v, want it refused as unavailable", err)
			}
			h.Close()
			st.Close()

			st = openFile(t, ds.DSN)
			defer st.Close()
			h = mustEngineOn(t, st)
			if got, _ := h.Job(h.alice, paused.ID); got.Status != venue.StatusPaused {
				t.Errorf("the paused job is %s after the restart", got.Status)
			}
		})
	}
}

// TestLoss_SettleAfterCloseReportsSettled: a run that outlasts Drain (5 s)
// and resolves its task after Engine.Close reaches Settle -> settleHeld ->
// transit, whose record the closed writer refuses (an error ticket nobody
// reads). Settle still reports true; the agent has removed the task; the
// job stays open for good.
func TestLoss_SettleAfterCloseReportsSettled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	e, stop := holdEngine(t, path)
	rec, err := e.Invoke(alice, runtime.InvokeRequest{Operation: "v/ops/hold/wait"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	e.Stop()
	e.Close() // the store stays open, as in Main.Close until store.Close
	settled, err := e.Settle(alice, rec.ID, venue.StatusComplete, json.RawMessage(`{"late": true}`), "")
	if settled || err == nil {
		t.Errorf("Settle after Close: %v %v, want it to say the end was not stored", settled, err)
	}
	stop()
	e, _ = holdEngine(t, path)
	got, _ := e.Job(alice, rec.ID)
	if settled && !got.Status.Terminal() {
		t.Fatalf("Settle reported the job settled, but it is stored %s", got.Status)
	}
}

// TestLoss_SettleBetweenCancelAndReturn: the shutdown cancels an Outliver's
// execution; until the executor returns, finish has not set leftOpen.
// awaitTask drops its waiter first thing on ctx.Done, so an agent's commit
// landing in that window goes endTask -> Settle -> settleHeld, which refuses
// (not leftOpen yet); then finish leaves the job open. The task is gone from
// the agent's record and the job stays open for good: 9d32c41's window,
// narrowed but not closed.
func TestLoss_SettleBetweenCancelAndReturn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	st := openFile(t, path)
	meta := json.RawMessage(`{"name": "Wait", "operation": {"adapter": "hold:wait", "input": {"type": "object"}}}`)
	cancelled, release := make(chan struct{}), make(chan struct{})
	wait := func(ctx context.Context, _ json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
		env.HandOver()
		<-ctx.Done()
		close(cancelled) // awaitTask: waiter deleted, about to return
		<-release
		return nil, context.Cause(ctx)
	}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Catalog: []runtime.CatalogEntry{{Path: "v/ops/hold/wait", Meta: meta}}},
		runtime.Deps{Store: st, Executors: map[string]runtime.Executor{"hold": holder{runtime.OpFuncs{"wait": wait}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := e.Invoke(alice, runtime.InvokeRequest{Operation: "v/ops/hold/wait"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	stopped := make(chan struct{})
	go func() { e.Stop(); close(stopped) }()
	<-cancelled
	settled, err := e.Settle(alice, rec.ID, venue.StatusComplete, json.RawMessage(`{"resolved": true}`), "")
	close(release)
	<-stopped
	e.Close()
	st.Close()
	e2, _ := holdEngine(t, path)
	got, _ := e2.Job(alice, rec.ID)
	if !settled || got.Status != venue.StatusComplete {
		t.Fatalf("Settle in the window answered %v %v; after the restart the job is %s", settled, err, got.Status)
	}
}

// TestLoss_AwaitAfterClose: once the engine has closed, a wait on a job
// that has not ended (paused, say) says so at once instead of returning
// the record unended, on which a caller waiting in a loop (an agent's run
// awaiting its transition) spun.
func TestLoss_AwaitAfterClose(t *testing.T) {
	h := mustEngine(t)
	rec := h.invoke(t, "v/test/ops/delay", `{"ms": 60000}`, 0)
	h.waitStatus(t, rec.ID, venue.StatusStarted)
	if _, err := h.Pause(h.alice, rec.ID); err != nil {
		t.Fatal(err)
	}
	h.Close()
	begun := time.Now()
	if _, err := h.Await(h.alice, rec.ID, time.Minute); venue.ErrorCode(err) != venue.EUNAVAILABLE || time.Since(begun) > 5*time.Second {
		t.Fatalf("await after Close: %v after %s", err, time.Since(begun))
	}
}
