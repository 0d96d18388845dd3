package runtime_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/sql/sqltest"
)

// TestEngine_NodesShareOnePostgres runs two venue nodes on one database:
// any node answers for any job, commands reach the node running the job,
// and watchers on one node see what happens on the other.
func TestEngine_NodesShareOnePostgres(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	open := func() *harness {
		st, err := sql.Open(context.Background(), dsn, sql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return mustEngineOn(t, st)
	}
	a, b := open(), open()
	if a.Identity().DID != b.Identity().DID || !a.Identity().Key.Equal(b.Identity().Key) {
		t.Fatal("two nodes on one store have different keys")
	}

	t.Run("a cancel on one node stops the job on the other", func(t *testing.T) {
		j := a.invoke(t, "v/test/ops/never", `{}`, 0)
		b.waitStatus(t, j.ID, venue.StatusStarted)
		if got, err := b.Cancel(b.alice, j.ID); err != nil || got.Status != venue.StatusCancelled {
			t.Fatalf("cancel on b: %v %v", got, err)
		}
		a.waitStatus(t, j.ID, venue.StatusCancelled)
	})

	t.Run("a reply on one node answers the job on the other, and watchers see it", func(t *testing.T) {
		j := a.invoke(t, "v/test/ops/ask", `{}`, 0)
		b.waitStatus(t, j.ID, venue.StatusInputRequired)
		ctx, cancel := context.WithTimeout(b.alice, 10*time.Second)
		defer cancel()
		events, err := b.Watch(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Reply(b.alice, j.ID, json.RawMessage(`{"ok": true}`)); err != nil {
			t.Fatal(err)
		}
		var last *venue.Job
		for rec := range events {
			last = rec
		}
		if last == nil || last.Status != venue.StatusComplete || string(last.Output) != `{"reply":{"ok":true}}` {
			t.Fatalf("b watched %v", last)
		}
	})

	t.Run("a job paused on one node resumes on another", func(t *testing.T) {
		j := a.invoke(t, "v/test/ops/delay", `{"ms": 300}`, 0)
		b.waitStatus(t, j.ID, venue.StatusStarted)
		if _, err := b.Pause(b.alice, j.ID); err != nil {
			t.Fatal(err)
		}
		a.waitStatus(t, j.ID, venue.StatusPaused)
		if _, err := b.Resume(b.alice, j.ID); err != nil {
			t.Fatal(err)
		}
		done := a.waitStatus(t, j.ID, venue.StatusComplete)
		if got := statuses(done); len(got) != 5 {
			t.Fatalf("prev chain %v", got)
		}
	})
}

// TestEngine_ResyncCatchesUp: a reply queued while this node could not
// hear the others (its note lost with the listening connection) is taken
// once the node catches up after the connection comes back.
func TestEngine_ResyncCatchesUp(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/ask", `{}`, 0)
	h.waitStatus(t, j.ID, venue.StatusInputRequired)
	// Queued as another node does, whose note never arrives.
	if _, err := h.store.AddJobMessage(h.alice, j.ID, []byte(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got, _ := h.Job(h.alice, j.ID); got.Status != venue.StatusInputRequired {
		t.Fatalf("the job moved on unwoken: %s", got.Status)
	}
	h.Resync()
	h.waitStatus(t, j.ID, venue.StatusComplete)
}
