package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/sql/sqltest"
)

// lossVenue is startVenue with one worker and the test operations, and a
// stop that shuts down as Main.Close does (agents.Close, Stop, Drain, Close).
func lossVenue(t testing.TB, path string, a *Agents, workers int) (*runtime.Engine, func()) {
	t.Helper()
	return lossVenueOn(t, path, a, workers, true)
}

func lossVenueOn(t testing.TB, path string, a *Agents, workers int, single bool) (*runtime.Engine, func()) {
	t.Helper()
	st, err := sql.Open(context.Background(), path, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	tst, _ := testops.Entries()
	execs := a.Executors()
	execs["test"] = testops.Executor()
	eng, err := runtime.New(context.Background(), runtime.Config{Catalog: append(entries, tst...), SingleNode: single, Workers: workers},
		runtime.Deps{Store: st, Executors: execs})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		a.Close()
		eng.Stop()
		a.Drain(5 * time.Second)
		eng.Close()
		st.Close()
	}
	t.Cleanup(stop)
	if err := a.Start(context.Background(), eng); err != nil {
		t.Fatal(err)
	}
	return eng, stop
}

// TestLoss_TaskJobPendingAtShutdown: agent:request hands out the id of a
// task job that has not started (every worker busy: "answers after at most
// timeout + 1 s even if the task job has not started"). The shutdown leaves
// it open because its operation outlives the process, but the task was
// never queued in the agent's record, so nothing ever ends it.
func TestLoss_TaskJobPendingAtShutdown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	eng, stop := lossVenue(t, path, New(Config{SingleNode: true}), 1)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	inv := func(op, in string) *venue.Job {
		rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(in)})
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	hog := inv("v/test/ops/never", `{}`)
	time.Sleep(50 * time.Millisecond)
	req := inv("v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 0}`)
	time.Sleep(50 * time.Millisecond)
	inv("v/test/ops/never", `{}`) // queued behind the request, ahead of its task job
	time.Sleep(50 * time.Millisecond)
	if _, err := eng.Cancel(ctx, hog.ID); err != nil {
		t.Fatal(err)
	}
	done, err := eng.Await(ctx, req.ID, 5*time.Second)
	if err != nil || done.Status != venue.StatusComplete {
		t.Fatalf("request: %+v %v", done, err)
	}
	var out struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	json.Unmarshal(done.Output, &out)
	t.Logf("request answered %s", done.Output)
	taskID, err := venue.ParseJobID(out.ID)
	if err != nil {
		t.Fatal(err)
	}
	stop()

	eng, _ = lossVenue(t, path, New(Config{SingleNode: true}), 4)
	time.Sleep(2 * time.Second) // the restart takes up what it can
	got, err := eng.Job(ctx, taskID)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := load(ctx, eng, "bot", scope{})
	if !got.Status.Terminal() {
		t.Fatalf("task job %s handed out by agent:request is %s after the restart, and the agent holds %d tasks: nothing will ever end it",
			taskID, got.Status, len(r.Tasks))
	}
}

// TestLoss_RunCyclesOnAfterStop: a run whose transition ended before the
// stop goes on to its next cycle and invokes its next transition on the
// stopped engine. The job is handed out and never runs nor ends, the run
// hangs in callTransition past Drain (a minute), and the agent is left
// RUNNING with a fresh lease (on a shared store: not taken over for 15
// minutes, and Start does not look again).
func TestLoss_RunCyclesOnAfterStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	a := New(Config{SingleNode: true})
	eng, _ := lossVenue(t, path, a, 8)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	for i := 0; i < 40; i++ {
		mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 0}`)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot"}`)
	time.Sleep(100 * time.Millisecond) // cycles are under way
	a.Close()
	eng.Stop()
	start := time.Now()
	a.Drain(5 * time.Second)
	drained := time.Since(start)
	a.mu.Lock()
	left := len(a.runs)
	a.mu.Unlock()
	eng.Close()
	r, _ := load(ctx, eng, "bot", scope{})
	// what the store keeps: the transition jobs not ended
	ids, _, _ := eng.Jobs(ctx, 0, -1)
	open := 0
	for _, id := range ids {
		j, err := eng.Job(ctx, id)
		if err == nil && !j.Status.Terminal() && j.Name != "agent:task" {
			open++
			t.Logf("open after shutdown: %s %s %s", j.ID, j.Name, j.Status)
		}
	}
	if left > 0 || open > 0 || r.Status != Sleeping {
		t.Fatalf("drain took %v; runs left %d; jobs other than tasks left open %d; agent %s lease %d",
			drained.Round(time.Millisecond), left, open, r.Status, r.Lease)
	}
}

// TestLoss_PausedTaskJobResolved: a task job's end comes from its agent's
// task list, which a pause does not hold: the agent would resolve the task
// and its result be dropped with the job PAUSED, and a resume would run the
// task again. Such a job cannot be paused; it runs to its agent's result.
func TestLoss_PausedTaskJobResolved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "venue.db")
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	eng, _ := lossVenue(t, path, New(Config{SingleNode: true}), 8)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	var out struct {
		ID string `json:"id"`
	}
	json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 0}`), &out)
	id, _ := venue.ParseJobID(out.ID)
	if _, err := eng.Pause(ctx, id); venue.ErrorCode(err) != venue.ECONFLICT || !strings.Contains(err.Error(), "cancel it instead") {
		t.Fatalf("pause of a task job: %v, want 409 saying to cancel it", err)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot"}`)
	got, err := eng.Await(ctx, id, 5*time.Second)
	if err != nil || got.Status != venue.StatusComplete {
		t.Fatalf("task job %+v %v", got, err)
	}
}

// TestLoss_RunCyclesOnAfterStopPostgres: the same on a shared store, then a
// restart: the agent is left RUNNING under the stopped node's fresh lease,
// which Start does not take over, and nothing looks again: the queued
// tasks (their jobs handed out) wait for a wake that comes from nowhere.
func TestLoss_RunCyclesOnAfterStopPostgres(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	a := New(Config{})
	eng, stop := lossVenueOn(t, dsn, a, 8, false)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	for i := 0; i < 40; i++ {
		mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 0}`)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot"}`)
	time.Sleep(100 * time.Millisecond)
	stop()
	eng, _ = lossVenueOn(t, dsn, New(Config{}), 8, false)
	time.Sleep(3 * time.Second)
	r, _ := load(ctx, eng, "bot", scope{})
	if len(r.Tasks) > 0 {
		ids, _, _ := eng.Jobs(ctx, 0, -1)
		open := 0
		for _, id := range ids {
			if j, err := eng.Job(ctx, id); err == nil && !j.Status.Terminal() && j.Name != "agent:task" {
				open++
			}
		}
		t.Fatalf("after the restart: agent %s (lease %d ms old), %d tasks queued and not taken up; %d non-task jobs open",
			r.Status, time.Now().UnixMilli()-r.Lease, len(r.Tasks), open)
	}
}

// TestLoss_NodeStopsAgentSleepsWithOthersTasks: two nodes on one Postgres.
// The agent runs on A; a task comes in through B (B's wake finds it
// RUNNING and leaves it to A's run). A stops: its run puts the agent back
// to SLEEPING with the task, for A's restart. B goes on, its task job
// waiting and polling the record, but nothing on B ever wakes the agent.
func TestLoss_NodeStopsAgentSleepsWithOthersTasks(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	ea, stopA := lossVenueOn(t, dsn, New(Config{}), 8, false)
	eb, _ := lossVenueOn(t, dsn, New(Config{}), 8, false)
	mustInvoke(t, ctx, ea, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "slow", "delay": 3000}, "timeout": 0}`)
	time.Sleep(300 * time.Millisecond)
	var out struct {
		ID string `json:"id"`
	}
	json.Unmarshal(mustInvoke(t, ctx, eb, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "via b"}, "timeout": 0}`), &out)
	id, _ := venue.ParseJobID(out.ID)
	stopA()
	time.Sleep(5 * time.Second)
	r, _ := load(ctx, eb, "bot", scope{})
	got, _ := eb.Job(ctx, id)
	if !got.Status.Terminal() {
		t.Fatalf("B's task job %s is %s 5 s after A stopped; agent %s with %d tasks: nothing on B takes it up", id, got.Status, r.Status, len(r.Tasks))
	}
}
