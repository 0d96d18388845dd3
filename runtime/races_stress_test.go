package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/native"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/sql"
)

// liveRuns tracks the executions of each job under way, to catch two that
// run at once with neither cancelled.
type liveRuns struct {
	mu     sync.Mutex
	runs   map[venue.JobID]map[*context.Context]struct{}
	double atomic.Int64
	msgs   []string
}

func (l *liveRuns) enter(id venue.JobID, ctx *context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs = map[venue.JobID]map[*context.Context]struct{}{}
	}
	if l.runs[id] == nil {
		l.runs[id] = map[*context.Context]struct{}{}
	}
	l.runs[id][ctx] = struct{}{}
}

// overlapping returns, per job, the pairs of executions live (neither
// cancelled) at once.
func (l *liveRuns) overlapping() map[[2]*context.Context]venue.JobID {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[[2]*context.Context]venue.JobID{}
	for id, runs := range l.runs {
		var liveOnes []*context.Context
		for c := range runs {
			if (*c).Err() == nil {
				liveOnes = append(liveOnes, c)
			}
		}
		for i := range liveOnes {
			for k := i + 1; k < len(liveOnes); k++ {
				a, b := liveOnes[i], liveOnes[k]
				if fmt.Sprintf("%p", a) > fmt.Sprintf("%p", b) {
					a, b = b, a
				}
				out[[2]*context.Context{a, b}] = id
			}
		}
	}
	return out
}

// watch counts the pairs of executions of one job that stay live at once
// for longer than d: two nodes (or two runs on one) executing one job, not
// the moment a losing write takes to be heard.
func (l *liveRuns) watch(stop <-chan struct{}, d time.Duration) {
	since := map[[2]*context.Context]time.Time{}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		now := time.Now()
		cur := l.overlapping()
		for pair, id := range cur {
			t0, ok := since[pair]
			if !ok {
				since[pair] = now
				continue
			}
			if now.Sub(t0) > d && !t0.IsZero() {
				l.double.Add(1)
				l.mu.Lock()
				l.msgs = append(l.msgs, fmt.Sprintf("job %s: two executions live at once for over %s", id, d))
				l.mu.Unlock()
				since[pair] = time.Time{} // counted once
			}
		}
		for pair := range since {
			if _, ok := cur[pair]; !ok {
				delete(since, pair)
			}
		}
	}
}

func (l *liveRuns) leave(id venue.JobID, ctx *context.Context) {
	l.mu.Lock()
	delete(l.runs[id], ctx)
	l.mu.Unlock()
}

const stressCatalog = `{"name": "AskCount", "description": "asks, then sleeps a little",
 "operation": {"adapter": "stress:ask", "input": {"type": "object"}}}`

func stressEngine(t *testing.T, st sqlStore, live *liveRuns, opts ...option) *harness {
	t.Helper()
	nat, _ := native.Entries()
	tst, _ := testops.Entries()
	execs := native.Executors()
	execs["test"] = testops.Executor()
	execs["stress"] = runtime.OpFuncs{"ask": func(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
		live.enter(env.JobID(), &ctx)
		defer live.leave(env.JobID(), &ctx)
		for { // asks again and again: only a cancel ends it
			if _, err := env.Ask(ctx, json.RawMessage(`"go on?"`)); err != nil {
				return nil, err
			}
			select {
			case <-time.After(time.Duration(rand.IntN(5)) * time.Millisecond):
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
	}}
	cfg := runtime.Config{Catalog: append(append(nat, tst...), runtime.CatalogEntry{Path: "v/test/ops/stressask", Meta: json.RawMessage(stressCatalog)}),
		SingleNode: st.Dialect() == "sqlite", Flushers: st.FlushParallelism(), Workers: 3}
	for _, o := range opts {
		o(&cfg)
	}
	return harnessOf(t, st, cfg, execs)
}

// TestRace_StressOneJobManyCommands hammers jobs on one SQLite node with
// every client command at once, then cancels them all and checks that each
// ended once, every wait came back with the end, no two executions of a
// job ran live at once, and nothing stays held.
func TestRace_StressOneJobManyCommands(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	live := &liveRuns{}
	h := stressEngine(t, st, live)
	stressJobs(t, h, h, live, 24, 2*time.Second, 500*time.Millisecond)
}

// stressJobs runs the stress on jobs invoked on a and commanded on a and b
// (the same engine, or two nodes). Two executions of one job may be live
// at once for overlap: a node stops its own at once, but learns of another
// node's command only when its note arrives, which under a loaded CI (the
// race detector, two cores) took over 500 ms.
func stressJobs(t *testing.T, a, b *harness, live *liveRuns, n int, d, overlap time.Duration) {
	baseG := goruntime.NumGoroutine()
	stopWatch := make(chan struct{})
	go live.watch(stopWatch, overlap)
	defer close(stopWatch)
	ids := make([]venue.JobID, n)
	var invokes sync.WaitGroup
	for i := range ids {
		if i%2 == 0 {
			ids[i] = a.invoke(t, "v/test/ops/stressask", `{}`, 0).ID
			continue
		}
		// With wait, the id comes back once it asks or ends.
		rec, err := a.Invoke(a.alice, runtime.InvokeRequest{Operation: "v/test/ops/stressask", Input: json.RawMessage(`{}`), Wait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
	}
	// Long waits, begun now, must all come back with the end.
	type waited struct {
		rec *venue.Job
		err error
		at  time.Time
	}
	waits := make([]chan waited, n)
	for i, id := range ids {
		waits[i] = make(chan waited, 1)
		h := a
		if i%3 == 0 {
			h = b
		}
		go func() {
			rec, err := h.Await(h.alice, id, 60*time.Second)
			waits[i] <- waited{rec, err, time.Now()}
		}()
	}
	var firstEnd sync.Map // id -> *venue.Job, the first terminal record seen
	seeEnd := func(rec *venue.Job) {
		if rec == nil || !rec.Status.Terminal() {
			return
		}
		if prev, loaded := firstEnd.LoadOrStore(rec.ID, rec); loaded {
			p := prev.(*venue.Job)
			if p.Status != rec.Status || p.Version != rec.Version {
				t.Errorf("job %s ended %s v%d, then read %s v%d", rec.ID, p.Status, p.Version, rec.Status, rec.Version)
			}
		}
	}
	stop := time.Now().Add(d)
	var cmds sync.WaitGroup
	for i, id := range ids {
		for w := 0; w < 4; w++ {
			cmds.Add(1)
			go func() {
				defer cmds.Done()
				for time.Now().Before(stop) {
					h := a
					if rand.IntN(2) == 0 {
						h = b
					}
					switch rand.IntN(9) {
					case 0:
						h.Pause(h.alice, id)
					case 1, 2:
						h.Resume(h.alice, id)
					case 3:
						h.Reply(h.alice, id, json.RawMessage(`{"ok":true}`))
					case 4:
						rec, _ := h.Job(h.alice, id)
						seeEnd(rec)
					case 5:
						rec, _ := h.Await(h.alice, id, time.Duration(rand.IntN(30))*time.Millisecond)
						seeEnd(rec)
					case 6:
						ctx, cancel := context.WithTimeout(h.alice, time.Duration(rand.IntN(50))*time.Millisecond)
						if ch, err := h.Watch(ctx, id); err == nil {
							for rec := range ch {
								seeEnd(rec)
							}
						}
						cancel()
					case 7:
						if err := h.DeleteJob(h.alice, id); err == nil {
							t.Errorf("job %s deleted before it ended", id)
						}
					case 8:
						_ = i // no job ends before the final cancels: a delete must be refused
					}
				}
			}()
		}
	}
	cmds.Wait()
	invokes.Wait()
	ended := time.Now()
	for _, id := range ids {
		var rec *venue.Job
		var err error
		for tries := 0; tries < 5; tries++ {
			if rec, err = a.Cancel(a.alice, id); err == nil {
				break
			}
		}
		if err != nil || !rec.Status.Terminal() {
			t.Errorf("cancel %s: %v %v", id, rec, err)
			continue
		}
		seeEnd(rec)
	}
	for i, id := range ids {
		select {
		case w := <-waits[i]:
			if w.err != nil || !w.rec.Status.Terminal() {
				t.Errorf("wait on %s came back with %v %v", id, w.rec, w.err)
			} else {
				seeEnd(w.rec)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("wait on %s did not come back %s after every job ended", id, time.Since(ended))
		}
		for _, h := range []*harness{a, b} {
			var rec *venue.Job
			var err error
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
				if rec, err = h.Job(h.alice, id); err == nil && rec.Status.Terminal() {
					break
				}
			}
			if err != nil || !rec.Status.Terminal() {
				t.Errorf("job %s 2s after the end: %v %v", id, rec.Status, err)
				continue
			}
			seeEnd(rec)
		}
		row, err := a.store.Job(context.Background(), id)
		if err != nil || !row.Status.Terminal() {
			t.Errorf("stored job %s after the end: %v %v", id, row.Status, err)
		}
	}
	if n := live.double.Load(); n > 0 {
		t.Errorf("%d times two executions of one job ran live at once: %v", n, live.msgs[:min(3, len(live.msgs))])
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, h := range []*harness{a, b} {
		for {
			c := h.HeldCounts()
			if c == (runtime.Counts{}) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("held after every job ended: %+v", c)
				buf := make([]byte, 4<<20)
				for _, g := range strings.Split(string(buf[:goruntime.Stack(buf, true)]), "\n\n") {
					if strings.Contains(g, "(*Engine).execute") {
						t.Logf("execution left running:\n%s", g)
					}
				}
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, id := range ids {
		if err := a.DeleteJob(a.alice, id); err != nil {
			t.Errorf("delete %s: %v", id, err)
		}
	}
	for g := goruntime.NumGoroutine(); g > baseG+10; g = goruntime.NumGoroutine() {
		if time.Now().After(deadline.Add(5 * time.Second)) {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines, %d before:\n%s", g, baseG, buf[:goruntime.Stack(buf, true)])
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRace_StressTwoNodes is the stress with jobs invoked on node A and
// commanded on both A and B, sharing Postgres.
func TestRace_StressTwoNodes(t *testing.T) {
	open := sharedPostgres(t)
	live := &liveRuns{}
	a := stressEngine(t, open(), live)
	b := stressEngine(t, open(), live)
	stressJobs(t, a, b, live, 16, 3*time.Second, 3*time.Second)
}

// TestRace_ResumesOnTwoNodesLeaveNoOrphan: pauses and resumes of one job
// sent at once to two nodes. Whatever wins, once the job is cancelled no
// execution of it may go on, and neither node may count it.
// Before the fix two causes left an execution running (until its job's
// ten-minute deadline) with nothing to stop it: a command that looked the
// job up here just before another node's write took it away went on with
// the dropped entry (commandOnce), and two resumes adopted here from two
// stored states put two entries for one job (adoptStored), the first
// overwritten while its execution ran.
func TestRace_ResumesOnTwoNodesLeaveNoOrphan(t *testing.T) {
	open := sharedPostgres(t)
	live := &liveRuns{}
	a := stressEngine(t, open(), live)
	b := stressEngine(t, open(), live)
	ids := make([]venue.JobID, 12)
	for i := range ids {
		ids[i] = a.invoke(t, "v/test/ops/stressask", `{}`, 0).ID
	}
	stop := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	for _, id := range ids {
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					h := []*harness{a, b}[rand.IntN(2)]
					switch rand.IntN(3) {
					case 0:
						h.Pause(h.alice, id)
					case 1:
						h.Resume(h.alice, id)
					case 2:
						h.Reply(h.alice, id, json.RawMessage(`{}`))
					}
				}
			}()
		}
	}
	wg.Wait()
	for _, id := range ids {
		if _, err := b.Cancel(b.alice, id); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, h := range []*harness{a, b} {
		for c := h.HeldCounts(); c != (runtime.Counts{}); c = h.HeldCounts() {
			if time.Now().After(deadline) {
				t.Fatalf("every job cancelled, yet a node holds %+v", c)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
