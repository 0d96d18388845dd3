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
	h.waitStatus(t, mine[0].ID, venue.StatusStarted)
	h.waitStatus(t, mine[1].ID, venue.StatusStarted)
	time.Sleep(50 * time.Millisecond)
	if j, _ := h.Job(h.alice, mine[2].ID); j.Status != venue.StatusPending {
		t.Fatalf("alice's third job is %s with two running, want PENDING", j.Status)
	}
	j, err := h.Invoke(h.bob, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(`{}`), Wait: 5 * time.Second})
	if err != nil || j.Status != venue.StatusComplete {
		t.Fatalf("bob's job waited on alice's: %v %v", j, err)
	}
	if _, err := h.Cancel(h.alice, mine[0].ID); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, mine[2].ID, venue.StatusStarted)
	for _, j := range mine[1:] {
		h.Cancel(h.alice, j.ID)
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
