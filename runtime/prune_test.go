package runtime_test

import (
	"context"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/sql"
)

// TestEngine_PruneJobs: with a retention, the records of jobs that ended
// longer ago go, also from the records kept in memory, and the rest stay:
// jobs that ended since, and unfinished jobs however old.
func TestEngine_PruneJobs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		retention time.Duration
		wantGone  bool
	}{
		{"past the retention", time.Hour, true},
		{"without a retention nothing is pruned", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := sql.Open(context.Background(), "", sql.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			tst, err := testops.Entries()
			if err != nil {
				t.Fatal(err)
			}
			clock := &frozenClock{t: time.Now()}
			e, err := runtime.New(context.Background(), runtime.Config{Catalog: tst, SingleNode: true, JobRetention: tc.retention},
				runtime.Deps{Store: st, Executors: map[string]runtime.Executor{"test": testops.Executor()}, Now: clock.now})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close() })
			alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
			invoke := func(op, input string) *venue.Job {
				j, err := e.Invoke(alice, runtime.InvokeRequest{Operation: op, Input: []byte(input), Wait: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				return j
			}
			old := invoke("v/test/ops/echo", `{"n": 1}`)
			asking := invoke("v/test/ops/ask", `{"question": "Which colour?"}`)
			if old.Status != venue.StatusComplete || asking.Status != venue.StatusInputRequired {
				t.Fatalf("statuses %s and %s", old.Status, asking.Status)
			}
			if _, err := e.Job(alice, old.ID); err != nil { // now kept in memory too
				t.Fatal(err)
			}
			clock.advance(2 * time.Hour)
			recent := invoke("v/test/ops/echo", `{"n": 2}`)
			n, err := e.PruneJobs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]int{true: 1, false: 0}[tc.wantGone]
			if n != want {
				t.Fatalf("pruned %d, want %d", n, want)
			}
			_, err = e.Job(alice, old.ID)
			if gone := venue.ErrorCode(err) == venue.ENOTFOUND; gone != tc.wantGone {
				t.Fatalf("the old job: %v, want gone %v", err, tc.wantGone)
			}
			for _, id := range []venue.JobID{asking.ID, recent.ID} {
				if _, err := e.Job(alice, id); err != nil {
					t.Fatalf("job %s: %v", id, err)
				}
			}
			if _, total, err := e.Jobs(alice, 0, 10); err != nil || total != 3-want {
				t.Fatalf("%d jobs listed, %v; want %d", total, err, 3-want)
			}
		})
	}
}
