package runtime_test

import (
	"encoding/json"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func TestEngine_OneCallerCannotTakeEveryWorker(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Workers, c.CallerWorkers = 3, 2 })
	var mine []*venue.Job
	for range 3 {
		mine = append(mine, h.invoke(t, "v/test/ops/never", `{}`, 0))
	}
	// Which two of the three take the slots is the scheduler's choice.
	started, pending := h.splitStarted(t, mine, 2)
	time.Sleep(50 * time.Millisecond)
	if j, _ := h.Job(h.alice, pending.ID); j.Status != venue.StatusPending {
		t.Fatalf("alice's third job is %s with two running, want PENDING", j.Status)
	}
	j, err := h.Invoke(h.bob, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(`{}`), Wait: 5 * time.Second})
	if err != nil || j.Status != venue.StatusComplete {
		t.Fatalf("bob's job waited on alice's: %v %v", j, err)
	}
	if _, err := h.Cancel(h.alice, started[0].ID); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, pending.ID, venue.StatusStarted)
	h.Cancel(h.alice, started[1].ID)
	h.Cancel(h.alice, pending.ID)
}

// splitStarted waits until n of jobs are STARTED and returns those and
// the one job left, which must still be PENDING.
func (h *harness) splitStarted(t *testing.T, jobs []*venue.Job, n int) ([]*venue.Job, *venue.Job) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var started, rest []*venue.Job
		for _, j := range jobs {
			if cur, _ := h.Job(h.alice, j.ID); cur != nil && cur.Status == venue.StatusStarted {
				started = append(started, j)
			} else {
				rest = append(rest, j)
			}
		}
		if len(started) == n && len(rest) == 1 {
			return started, rest[0]
		}
		if len(started) > n || time.Now().After(deadline) {
			t.Fatalf("%d of alice's %d jobs STARTED, want %d", len(started), len(jobs), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestEngine_QuestionsGiveTheCallersSlotBack(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Workers, c.CallerWorkers = 4, 1 })
	ask := h.invoke(t, "v/test/ops/ask", `{"question": "colour?"}`, 0)
	h.waitStatus(t, ask.ID, venue.StatusInputRequired)
	if j := h.invoke(t, "v/test/ops/echo", `{}`, 5*time.Second); j.Status != venue.StatusComplete {
		t.Fatalf("a job waiting for input kept alice's only slot: %s", j.Status)
	}
	if _, err := h.Reply(h.alice, ask.ID, json.RawMessage(`{"colour": "blue"}`)); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, ask.ID, venue.StatusComplete)
}
