package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// startVenue runs an engine with the agent operations over the SQLite file
// path, as a single-node venue does, and starts a.
// startVenue starts a venue on the SQLite file at path; the function it
// returns stops it and closes the store (a SQLite file is one venue's).
func startVenue(t *testing.T, path string, a *Agents) (*runtime.Engine, func()) {
	t.Helper()
	st, err := sql.Open(context.Background(), path, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := runtime.New(context.Background(), runtime.Config{Catalog: entries, SingleNode: true},
		runtime.Deps{Store: st, Executors: a.Executors()})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() { eng.Close(); st.Close() }
	t.Cleanup(stop)
	if err := a.Start(context.Background(), eng); err != nil {
		t.Fatal(err)
	}
	return eng, stop
}

func mustInvoke(t testing.TB, ctx context.Context, eng *runtime.Engine, op, input string) json.RawMessage {
	t.Helper()
	rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: 10 * time.Second})
	if err != nil || rec.Status != venue.StatusComplete {
		t.Fatalf("%s %s: %v %+v", op, input, err, rec)
	}
	return rec.Output
}

// TestAgents_StartTakesUpACrashedRun: a venue that died in runs left its
// agents RUNNING, noted in the index, one with a message pending. The next
// venue on the store resets them and runs the one with work.
func TestAgents_StartTakesUpACrashedRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	first := New(Config{SingleNode: true})
	eng, stop := startVenue(t, path, first)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/message", `{"agentId": "bot", "message": "left behind"}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "idle", "config": {"operation": "v/ops/transition/scripted"}}`)
	// What the crash leaves: the agents RUNNING and noted, nothing running them.
	for _, id := range []string{"bot", "idle"} {
		err := update(ctx, eng, id, scope{}, func(r *record) (*record, error) {
			r.Status, r.Lease = Running, first.ms()
			return r, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		first.note(eng, "did:key:z6MkOwner", id, true)
	}
	stop()

	eng, _ = startVenue(t, path, New(Config{SingleNode: true}))
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := load(ctx, eng, "bot", scope{timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == Sleeping && len(r.entries()) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent was not taken up: %s, %d timeline entries", r.Status, len(r.entries()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r, err := load(ctx, eng, "idle", scope{}); err != nil || r.Status != Sleeping {
		t.Fatalf("the agent without work: %+v %v", r, err)
	}
	for {
		res, err := eng.Read(venueCtx(eng), runningPath, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exists || string(res.Value) == "{}" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index still notes the agents: %s", res.Value)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
