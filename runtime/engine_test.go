package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/native"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/sql"
)

// harness is an engine over a real store, with the test and native
// operations, and two callers.
type harness struct {
	*runtime.Engine
	store runtime.Store
	alice context.Context
	bob   context.Context
}

type option func(*runtime.Config)

func mustEngine(t *testing.T, opts ...option) *harness {
	t.Helper()
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return mustEngineOn(t, st, opts...)
}

// sqlStore is what the harness needs of a store beyond runtime.Store.
type sqlStore interface {
	runtime.Store
	Dialect() string
	FlushParallelism() int
}

func mustEngineOn(t *testing.T, st sqlStore, opts ...option) *harness {
	t.Helper()
	nat, err := native.Entries()
	if err != nil {
		t.Fatal(err)
	}
	tst, err := testops.Entries()
	if err != nil {
		t.Fatal(err)
	}
	execs := native.Executors()
	execs["test"] = testops.Executor()
	cfg := runtime.Config{Catalog: append(nat, tst...), Names: map[string]string{"echo": "v/test/ops/echo"},
		SingleNode: st.Dialect() == "sqlite", Flushers: st.FlushParallelism()}
	for _, o := range opts {
		o(&cfg)
	}
	return harnessOf(t, st, cfg, execs)
}

// harnessOf starts an engine of cfg and execs on st, closed when the test
// ends, with alice and bob as its callers.
func harnessOf(t *testing.T, st sqlStore, cfg runtime.Config, execs map[string]runtime.Executor) *harness {
	t.Helper()
	e, err := runtime.New(context.Background(), cfg, runtime.Deps{Store: st, Executors: execs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	bg := context.Background()
	return &harness{Engine: e, store: st,
		alice: venue.WithCaller(bg, venue.Caller{DID: "did:key:alice"}),
		bob:   venue.WithCaller(bg, venue.Caller{DID: "did:key:bob"})}
}

// invoke invokes as alice and fails the test on error.
func (h *harness) invoke(t *testing.T, op, input string, wait time.Duration) *venue.Job {
	t.Helper()
	j, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: wait})
	if err != nil {
		t.Fatalf("invoke %s: %v", op, err)
	}
	return j
}

// waitStatus polls alice's job until it has status s.
func (h *harness) waitStatus(t *testing.T, id venue.JobID, s venue.JobStatus) *venue.Job {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		j, err := h.Job(h.alice, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == s {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s, want %s", id, j.Status, s)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func statuses(j *venue.Job) []venue.JobStatus {
	var out []venue.JobStatus
	for ; j != nil; j = j.Prev {
		out = append([]venue.JobStatus{j.Status}, out...)
	}
	return out
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if venue.ErrorCode(err) != code {
		t.Fatalf("error %v has code %q, want %q", err, venue.ErrorCode(err), code)
	}
}

func TestEngine_InvokeWaitReturnsFinalRecord(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/echo", `{"hello": "world"}`, time.Minute)
	if j.Status != venue.StatusComplete || string(j.Output) != `{"hello":"world"}` {
		t.Fatalf("got %s %s", j.Status, j.Output)
	}
	if got := statuses(j); len(got) != 3 || got[0] != venue.StatusPending || got[1] != venue.StatusStarted {
		t.Fatalf("prev chain %v, want PENDING STARTED COMPLETE", got)
	}
	if j.Caller != "did:key:alice" || j.Name != "test:echo" || j.Operation != "v/test/ops/echo" {
		t.Fatalf("record fields: %+v", j)
	}
	if j.Created <= 0 || j.Updated < j.Created || time.Since(time.UnixMilli(j.Created)) > time.Minute {
		t.Fatalf("times are not ms since the epoch: created %d updated %d", j.Created, j.Updated)
	}
	row, err := h.store.Job(context.Background(), j.ID)
	if err != nil || row.Status != venue.StatusComplete {
		t.Fatalf("the final record is not durable when wait returns: %v %v", row.Status, err)
	}
}

// TestEngine_InvokeJSONIsTheRecordsJSON checks the JSON InvokeJSON hands a
// door is the record's own, for every way an invoke returns: ended within
// the wait, not waited for, and still running when the wait ran out.
func TestEngine_InvokeJSONIsTheRecordsJSON(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct {
		name, op, input string
		wait            time.Duration
	}{
		{"ended within the wait", "v/test/ops/echo", `{"a": [1, "x"]}`, time.Minute},
		{"failed within the wait", "v/test/ops/error", `{"message": "no"}`, time.Minute},
		{"not waited for", "v/test/ops/delay", `{"ms": 1}`, 0},
		{"the wait ran out", "v/test/ops/delay", `{"ms": 200}`, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, enc, err := h.InvokeJSON(h.alice, runtime.InvokeRequest{Operation: tc.op, Input: json.RawMessage(tc.input), Wait: tc.wait})
			if err != nil {
				t.Fatal(err)
			}
			if want := rec.AppendJSON(nil); enc != nil && string(enc) != string(want) {
				t.Fatalf("InvokeJSON gave %s, the record is %s", enc, want)
			}
			if tc.wait == time.Minute && enc == nil {
				t.Fatal("a record written as it was returned came without its JSON")
			}
		})
	}
}

func TestEngine_InvokeWithoutWaitRecordsBeforeReturning(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 30, "value": 7}`, 0)
	if j.Status != venue.StatusPending {
		t.Fatalf("status %s, want PENDING", j.Status)
	}
	if _, err := h.store.Job(context.Background(), j.ID); err != nil {
		t.Fatalf("job id handed out before its record was stored: %v", err)
	}
	done := h.waitStatus(t, j.ID, venue.StatusComplete)
	if string(done.Output) != `{"slept":30,"value":7}` {
		t.Fatalf("output %s", done.Output)
	}
}

func TestEngine_WaitShorterThanJobReturnsRunningRecord(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 300}`, 20*time.Millisecond)
	if j.Status.Terminal() {
		t.Fatalf("status %s: the wait should have run out first", j.Status)
	}
	h.waitStatus(t, j.ID, venue.StatusComplete)
}

func TestEngine_FailedJob(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/error", `{"message": "the disk is full"}`, time.Minute)
	if j.Status != venue.StatusFailed || j.Error != "the disk is full" || j.Output != nil {
		t.Fatalf("got %s error %q output %s", j.Status, j.Error, j.Output)
	}
	_, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/error", Input: json.RawMessage(`{"message":"nope"}`)})
	if venue.ErrorMessage(err) != "Operation failed: nope" {
		t.Fatalf("run error %v", err)
	}
}

func TestEngine_RunReturnsBareOutput(t *testing.T) {
	h := mustEngine(t)
	out, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "echo", Input: json.RawMessage(`{"a": [1, 2]}`)})
	if err != nil || string(out) != `{"a":[1,2]}` {
		t.Fatalf("run: %s %v", out, err)
	}
}

// TestEngine_RunCallerGone: a run whose caller stops waiting says so, not
// that the venue is shutting down (which the request log then repeated).
func TestEngine_RunCallerGone(t *testing.T) {
	h := mustEngine(t)
	ctx, cancel := context.WithTimeout(h.alice, 100*time.Millisecond)
	defer cancel()
	_, err := h.Run(ctx, runtime.InvokeRequest{Operation: "v/test/ops/delay", Input: json.RawMessage(`{"ms": 2000}`)})
	if msg := venue.ErrorMessage(err); venue.ErrorCode(err) != venue.EUNAVAILABLE || !strings.HasPrefix(msg, "The caller stopped waiting for the operation") {
		t.Fatalf("run error %v", err)
	}
}

func TestEngine_JobTimeout(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.JobTimeout = 50 * time.Millisecond })
	j := h.invoke(t, "v/test/ops/never", `{}`, time.Minute)
	if j.Status != venue.StatusFailed || !strings.Contains(j.Error, "timed out after 50ms") {
		t.Fatalf("got %s %q", j.Status, j.Error)
	}
}

func TestEngine_PoolBoundsConcurrency(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Workers = 1 })
	first := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, first.ID, venue.StatusStarted)
	second := h.invoke(t, "v/test/ops/echo", `{}`, 50*time.Millisecond)
	if second.Status != venue.StatusPending {
		t.Fatalf("second job is %s while the only worker is busy, want PENDING", second.Status)
	}
	if _, err := h.Cancel(h.alice, first.ID); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, second.ID, venue.StatusComplete)
}

// TestEngine_NamesAreChecked refuses, at start, configured names that
// could never resolve: a name is followed one step only.
func TestEngine_NamesAreChecked(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tst, err := testops.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		names map[string]string
		want  string
	}{
		{"a name of a name", map[string]string{"echo": "v/test/ops/echo", "chain": "echo"},
			`operation name "chain": target "echo" is another name, and a name is followed one step only: give its target "v/test/ops/echo"`},
		{"a name of nothing", map[string]string{"chain": "nowhere"},
			`operation name "chain": target "nowhere" is no catalog path, pin, asset or DID URL`},
		{"a missing catalog entry", map[string]string{"x": "v/test/ops/nope"}, `operation name "x": no catalog entry at v/test/ops/nope`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.New(context.Background(), runtime.Config{Catalog: tst, Names: tc.names, SingleNode: true},
				runtime.Deps{Store: st, Executors: map[string]runtime.Executor{"test": testops.Executor()}})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("New: %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestEngine_InputNotUTF8: raw input that is not UTF-8 (as a door that
// decodes into raw JSON hands it on) is refused before a job exists, so no
// record or lattice value ever holds it.
func TestEngine_InputNotUTF8(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct{ name, input string }{
		{"in a string", "{\"value\":\"a\xffb\"}"},
		{"a lone continuation byte", "{\"value\":\"\x80\"}"},
		{"in a member name", "{\"value\":{\"\xc3\":1}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(tc.input), Wait: time.Minute})
			if venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), "Input has bytes that are not UTF-8 text") {
				t.Fatalf("got %v, want EINVALID saying the input is not UTF-8", err)
			}
		})
	}
	if jobs, total, err := h.Jobs(h.alice, 0, 10); err != nil || total != 0 {
		t.Fatalf("jobs after refusals: %v %d %v, want none", jobs, total, err)
	}
}
