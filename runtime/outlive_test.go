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

// holder runs hold:wait, whose jobs wait on something outside the process
// until stopped, and outlive the process.
type holder struct{ runtime.OpFuncs }

func (holder) Outlives(op *venue.Operation) bool { return op.SubOp() == "wait" }

// holdEngine returns an engine over the SQLite file at path, and what stops
// it and closes its store (a SQLite file is one venue's at a time).
func holdEngine(t *testing.T, path string) (*runtime.Engine, func()) {
	t.Helper()
	st := openFile(t, path)
	meta := json.RawMessage(`{"name": "Wait", "operation": {"adapter": "hold:wait", "input": {"type": "object"}}}`)
	wait := func(ctx context.Context, _ json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
		env.HandOver() // what it waits on is kept outside the process from here
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Catalog: []runtime.CatalogEntry{{Path: "v/ops/hold/wait", Meta: meta}}},
		runtime.Deps{Store: st, Executors: map[string]runtime.Executor{"hold": holder{runtime.OpFuncs{"wait": wait}}}})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() { e.Close(); st.Close() }
	t.Cleanup(stop)
	return e, stop
}

// TestEngine_OutliverJobsStayOpen: an Outliver's job is failed neither by
// a shutdown nor by the restart of a single-node venue, and Settle ends it
// once, with its output.
func TestEngine_OutliverJobsStayOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	bob := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:bob"})
	e, stop := holdEngine(t, path)
	rec, err := e.Invoke(alice, runtime.InvokeRequest{Operation: "v/ops/hold/wait"})
	if err != nil {
		t.Fatal(err)
	}
	if settled, err := e.Settle(alice, rec.ID, venue.StatusComplete, json.RawMessage(`1`), ""); settled || err != nil {
		t.Fatalf("settled a job that runs here: %v %v", settled, err)
	}
	time.Sleep(50 * time.Millisecond)
	stop()

	e, _ = holdEngine(t, path)
	if got, err := e.Job(alice, rec.ID); err != nil || got.Status.Terminal() {
		t.Fatalf("after the restart: %+v %v", got, err)
	}
	if _, err := e.Settle(bob, rec.ID, venue.StatusComplete, json.RawMessage(`"bob's"`), ""); venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Fatalf("another caller settled it: %v", err)
	}
	if settled, err := e.Settle(alice, rec.ID, venue.StatusComplete, json.RawMessage(`{"done": true}`), ""); !settled || err != nil {
		t.Fatalf("settle: %v %v", settled, err)
	}
	got, err := e.Await(alice, rec.ID, time.Second)
	if err != nil || got.Status != venue.StatusComplete || string(got.Output) != `{"done":true}` {
		t.Fatalf("settled job %+v %v", got, err)
	}
	if settled, _ := e.Settle(alice, rec.ID, venue.StatusFailed, nil, "late"); settled {
		t.Fatal("a terminal job was settled again")
	}
}

// TestEngine_OutliverSettlesAsTheVenueStops: a job whose execution the
// shutdown stopped is the Outliver's to settle from then on, on this node
// too, until Close: an agent's run that resolved its task as the venue
// stopped ends the task's job then, since after the restart the task is no
// longer in the agent's record to be taken up.
func TestEngine_OutliverSettlesAsTheVenueStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	e, stop := holdEngine(t, path)
	rec, err := e.Invoke(alice, runtime.InvokeRequest{Operation: "v/ops/hold/wait"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // it runs
	e.Stop()
	if settled, err := e.Settle(alice, rec.ID, venue.StatusComplete, json.RawMessage(`{"as": "stopping"}`), ""); !settled || err != nil {
		t.Fatalf("settle after Stop: %v %v", settled, err)
	}
	stop()
	e, _ = holdEngine(t, path)
	got, err := e.Job(alice, rec.ID)
	if err != nil || got.Status != venue.StatusComplete || string(got.Output) != `{"as":"stopping"}` {
		t.Fatalf("after the restart: %+v %v", got, err)
	}
}
