package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql/sqltest"
)

// TestLease_LongRunTakenOverWhileAlive: two nodes on one Postgres. A run
// on A goes on from cycle to cycle for longer than LeaseTimeout (a busy
// agent). Its lease must stay fresh: when it was set only at the claim, a
// wake on B found it "stale" and claimed the agent while A's run was
// alive, and both runs cycled on it, running tasks twice (an audit's).
func TestLease_LongRunTakenOverWhileAlive(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	lease := 2 * time.Second
	ea, _ := lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	eb, _ := lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	mustInvoke(t, ctx, ea, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	for i := 0; i < 4; i++ {
		mustInvoke(t, ctx, ea, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "a`+string(rune('0'+i))+`", "delay": 1000}, "timeout": 0}`)
	}
	mustInvoke(t, ctx, ea, "v/ops/agent/resume", `{"agentId": "bot"}`) // A's run claims, and cycles 4 s
	time.Sleep(lease + 500*time.Millisecond)                           // A is alive, in its third cycle
	mustInvoke(t, ctx, eb, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "b"}, "timeout": 0}`)
	time.Sleep(4 * time.Second)
	r, err := load(ctx, ea, "bot", scope{timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range r.entries() {
		var entry struct {
			Tasks []json.RawMessage `json:"tasks"`
		}
		b, _ := json.Marshal(e)
		json.Unmarshal(b, &entry)
		for _, tk := range entry.Tasks {
			seen[string(tk)]++
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("task %s ran %d times: the live run on A was taken over by B", k, n)
		}
	}
	t.Logf("timeline: %d entries, %v", len(r.entries()), seen)
}

// TestLease_CrashedRunTakenUpOnceLeaseExpires: two nodes on one Postgres;
// a node died (SIGKILL) mid-run, leaving its agent RUNNING, noted in the
// index, with a task queued. Neither the other node nor the dead node's
// restart (within the lease) may take it over yet; once the lease is old,
// something must, or the task (its job handed out, a request waiting on
// it) waits for a wake that may never come.
func TestLease_CrashedRunTakenUpOnceLeaseExpires(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	lease := time.Second
	dead := New(Config{LeaseTimeout: lease})
	ea, stopA := lossVenueOn(t, dsn, dead, 8, false)
	mustInvoke(t, ctx, ea, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 0}`)
	// What the crash leaves: the agent RUNNING under a fresh lease, noted.
	if err := update(ctx, ea, "bot", scope{}, func(r *record) (*record, error) {
		r.Status, r.Lease = Running, dead.ms()
		return r, nil
	}); err != nil {
		t.Fatal(err)
	}
	dead.note(ea, "did:key:z6MkOwner", "bot", true)
	stopA()
	// The dead node restarts at once, and another node runs beside it.
	ea, _ = lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	deadline := time.Now().Add(4 * lease)
	for {
		r, err := load(ctx, ea, "bot", scope{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Tasks) == 0 && r.Status == Sleeping {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the crash (lease %v): agent %s with %d tasks queued, lease %d ms old: nothing takes it up",
				4*lease, lease, r.Status, len(r.Tasks), time.Now().UnixMilli()-r.Lease)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestChat_AnsweredByARunOnAnotherNode: two nodes on one Postgres; the
// agent runs on A when a chat comes in through B. A's run consumes the
// message and records the answer; B's chat must return it, not wait
// until its job's deadline.
func TestChat_AnsweredByARunOnAnotherNode(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	ea, _ := lossVenueOn(t, dsn, New(Config{}), 8, false)
	eb, _ := lossVenueOn(t, dsn, New(Config{}), 8, false)
	mustInvoke(t, ctx, ea, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "slow", "delay": 1000}, "timeout": 0}`)
	time.Sleep(200 * time.Millisecond) // A's run is in its cycle
	start := time.Now()
	rec, err := eb.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/chat",
		Input: json.RawMessage(`{"agentId": "bot", "message": "via b"}`), Wait: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != venue.StatusComplete {
		t.Fatalf("the chat through B is %s after %v (A's run answered in the record): %s", rec.Status, time.Since(start).Round(time.Millisecond), rec.Output)
	}
	var out struct {
		Response json.RawMessage `json:"response"`
	}
	json.Unmarshal(rec.Output, &out)
	if !strings.Contains(string(out.Response), "via b") {
		t.Fatalf("chat response %s, want the echo of the message", rec.Output)
	}
}

// TestLease_OneCycleLongerThanTheLease: two nodes on one Postgres; one
// cycle of A's run outlasts LeaseTimeout (its transition waits for input,
// is paused, waits for a worker, or runs under a jobTimeout past the
// lease). B's sweep must not find the live run's lease stale and run the
// same task a second time beside it.
func TestLease_OneCycleLongerThanTheLease(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	lease := 2 * time.Second
	ea, _ := lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	lossVenueOn(t, dsn, New(Config{LeaseTimeout: lease}), 8, false)
	mustInvoke(t, ctx, ea, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, ea, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": "long", "delay": 3500}, "timeout": 0}`)
	time.Sleep(3500*time.Millisecond + 2*lease) // a second run, had one begun, has committed too
	r, err := load(ctx, ea, "bot", scope{timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.entries()) != 1 {
		t.Errorf("%d cycles for one task: the live run's long cycle was taken over by the other node", len(r.entries()))
	}
}
