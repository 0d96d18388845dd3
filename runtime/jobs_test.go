package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

func TestEngine_Cancel(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, j.ID, venue.StatusStarted)
	got, err := h.Cancel(h.alice, j.ID)
	if err != nil || got.Status != venue.StatusCancelled || got.Error == "" {
		t.Fatalf("cancel: %v %v", got, err)
	}
	t.Run("a finished job is returned unchanged", func(t *testing.T) {
		again, err := h.Cancel(h.alice, j.ID)
		if err != nil || again.Status != venue.StatusCancelled || again.Version != got.Version {
			t.Fatalf("second cancel changed the record: %v %v", again, err)
		}
	})
	t.Run("the record stays cancelled", func(t *testing.T) {
		time.Sleep(20 * time.Millisecond)
		if j, _ := h.Job(h.alice, j.ID); j.Status != venue.StatusCancelled {
			t.Fatalf("status %s after the execution stopped", j.Status)
		}
	})
	t.Run("an unknown job is not found", func(t *testing.T) {
		_, err := h.Cancel(h.alice, venue.JobID{1})
		wantCode(t, err, venue.ENOTFOUND)
	})
}

func TestEngine_PauseAndResume(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 200, "value": "done"}`, 0)
	h.waitStatus(t, j.ID, venue.StatusStarted)
	steps := []struct {
		name     string
		do       func(context.Context, venue.JobID) (*venue.Job, error)
		want     venue.JobStatus
		wantCode string
	}{
		{"pause a started job", h.Pause, venue.StatusPaused, ""},
		{"pause a paused job conflicts", h.Pause, "", venue.ECONFLICT},
		{"resume a paused job", h.Resume, venue.StatusStarted, ""},
		{"resume a started job conflicts", h.Resume, "", venue.ECONFLICT},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got, err := s.do(h.alice, j.ID)
			if s.wantCode != "" {
				wantCode(t, err, s.wantCode)
				return
			}
			if err != nil || got.Status != s.want {
				t.Fatalf("got %v %v, want %s", got, err, s.want)
			}
		})
	}
	done := h.waitStatus(t, j.ID, venue.StatusComplete)
	if string(done.Output) != `{"slept":200,"value":"done"}` {
		t.Fatalf("resumed job output %s", done.Output)
	}
	want := []venue.JobStatus{venue.StatusPending, venue.StatusStarted, venue.StatusPaused, venue.StatusStarted, venue.StatusComplete}
	if got := statuses(done); len(got) != len(want) {
		t.Fatalf("prev chain %v, want %v", got, want)
	}
	t.Run("pause a finished job conflicts", func(t *testing.T) {
		_, err := h.Pause(h.alice, j.ID)
		wantCode(t, err, venue.ECONFLICT)
	})
}

func TestEngine_AskAndReply(t *testing.T) {
	h := mustEngine(t)
	t.Run("a reply answers a job waiting for input", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{"question": "colour?"}`, 0)
		asked := h.waitStatus(t, j.ID, venue.StatusInputRequired)
		if string(asked.Message) != `"colour?"` {
			t.Fatalf("message %s", asked.Message)
		}
		if n, err := h.Reply(h.alice, j.ID, json.RawMessage(`{"colour": "blue"}`)); err != nil || n != 1 {
			t.Fatalf("reply: %d %v", n, err)
		}
		done := h.waitStatus(t, j.ID, venue.StatusComplete)
		if string(done.Output) != `{"reply":{"colour":"blue"}}` {
			t.Fatalf("output %s", done.Output)
		}
	})
	t.Run("a value that is not an object is wrapped", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{}`, 0)
		h.waitStatus(t, j.ID, venue.StatusInputRequired)
		h.Reply(h.alice, j.ID, json.RawMessage(`"blue"`))
		if done := h.waitStatus(t, j.ID, venue.StatusComplete); string(done.Output) != `{"reply":{"content":"blue"}}` {
			t.Fatalf("output %s", done.Output)
		}
	})
	// The venue keeps JSON at most 1000 levels deep: a reply of 9999 levels
	// was taken, and the job's output, wrapped around it, broke its record.
	t.Run("a reply nested too deep is refused", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{}`, 0)
		h.waitStatus(t, j.ID, venue.StatusInputRequired)
		deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
		_, err := h.Reply(h.alice, j.ID, json.RawMessage(deep))
		wantCode(t, err, venue.EINVALID)
		if err.Error() != "Reply nests more than 1000 levels deep, more than the venue keeps" {
			t.Fatalf("error %q", err)
		}
		h.Cancel(h.alice, j.ID)
	})
	t.Run("a reply that readers would take differently is refused", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{}`, 0)
		h.waitStatus(t, j.ID, venue.StatusInputRequired)
		for reply, want := range map[string]string{`{"n": 1e999}`: "Reply has the number 1e999", `"\ud800"`: "Reply has half of a UTF-16 surrogate pair"} {
			_, err := h.Reply(h.alice, j.ID, json.RawMessage(reply))
			wantCode(t, err, venue.EINVALID)
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("reply %s: error %q, want %q", reply, err, want)
			}
		}
		h.Cancel(h.alice, j.ID)
	})
	// A reply that arrives while every worker is busy stays queued until the
	// job has a worker again; a pause meanwhile must not lose it.
	t.Run("a reply waiting for a worker survives a pause", func(t *testing.T) {
		h := mustEngine(t, func(c *runtime.Config) { c.Workers = 1 })
		j := h.invoke(t, "v/test/ops/ask", `{"question": "colour?"}`, 0)
		h.waitStatus(t, j.ID, venue.StatusInputRequired)
		busy := h.invoke(t, "v/test/ops/never", `{}`, 0)
		h.waitStatus(t, busy.ID, venue.StatusStarted)
		if _, err := h.Reply(h.alice, j.ID, json.RawMessage(`{"colour": "blue"}`)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // the job wakes, and waits for the worker
		if got, _ := h.Job(h.alice, j.ID); got.Status != venue.StatusInputRequired {
			t.Fatalf("status %s while the only worker is busy, want INPUT_REQUIRED", got.Status)
		}
		if _, err := h.Pause(h.alice, j.ID); err != nil {
			t.Fatal(err)
		}
		h.Cancel(h.alice, busy.ID)
		if _, err := h.Resume(h.alice, j.ID); err != nil {
			t.Fatal(err)
		}
		if done := h.waitStatus(t, j.ID, venue.StatusComplete); string(done.Output) != `{"reply":{"colour":"blue"}}` {
			t.Fatalf("output %s", done.Output)
		}
	})
	// Only the caller can move a job on that asks it something, so a wait
	// ends there: the wait of a minute must not outlast the context's 10 s.
	t.Run("a wait ends when the job asks its caller", func(t *testing.T) {
		for _, tc := range []struct {
			input  string
			status venue.JobStatus
		}{
			{`{"question": "colour?"}`, venue.StatusInputRequired},
			{`{"question": {"signIn": "https://idp.example/authorize"}, "auth": true}`, venue.StatusAuthRequired},
		} {
			ctx, cancel := context.WithTimeout(h.alice, 10*time.Second)
			j, err := h.Invoke(ctx, runtime.InvokeRequest{Operation: "v/test/ops/ask", Input: json.RawMessage(tc.input), Wait: time.Minute})
			waited := ctx.Err()
			cancel()
			if err != nil || waited != nil || j.Status != tc.status {
				t.Fatalf("invoke with wait: %v, %+v, context %v; want %s before the context ended", err, j, waited, tc.status)
			}
			h.Cancel(h.alice, j.ID)
		}
		ctx, cancel := context.WithTimeout(h.alice, 10*time.Second)
		defer cancel()
		_, err := h.Run(ctx, runtime.InvokeRequest{Operation: "v/test/ops/ask", Input: json.RawMessage(`{"question": "colour?"}`)})
		wantCode(t, err, venue.ECONFLICT)
		if ctx.Err() != nil || !strings.Contains(err.Error(), `is INPUT_REQUIRED, asking "colour?"), which a run cannot answer`) {
			t.Fatalf("run: %v (context %v)", err, ctx.Err())
		}
	})
	// A reply racing the wait's end: the invoker sees the question or
	// what came of the answer, never the STARTED between them.
	t.Run("a reply racing the wait", func(t *testing.T) {
		h := mustEngine(t)
		deadline := time.Now().Add(time.Minute)
		for range 30 {
			done := make(chan *venue.Job, 1)
			go func() {
				j, _ := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/ask", Input: json.RawMessage(`{}`), Wait: time.Minute})
				done <- j
			}()
			var id venue.JobID
			for id == (venue.JobID{}) {
				if time.Now().After(deadline) {
					t.Fatal("no job asked")
				}
				if jobs, _, _ := h.Jobs(h.alice, 0, 1000); len(jobs) > 0 {
					for _, j := range jobs {
						if rec, _ := h.Job(h.alice, j); rec != nil && rec.Status == venue.StatusInputRequired {
							id = j
						}
					}
				}
			}
			h.Reply(h.alice, id, json.RawMessage(`{"a":1}`))
			if j := <-done; j == nil || (j.Status != venue.StatusInputRequired && j.Status != venue.StatusComplete) {
				t.Fatalf("the waited invoke answered %+v", j)
			}
			h.waitStatus(t, id, venue.StatusComplete)
		}
	})
	t.Run("a run whose operation timed out waiting is ETIMEOUT", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{}`, 0)
		defer h.Cancel(h.alice, j.ID)
		_, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "v/ops/grid/job-result", Input: json.RawMessage(`{"id": "` + j.ID.String() + `", "timeout": 50}`)})
		wantCode(t, err, venue.ETIMEOUT)
		if !strings.Contains(err.Error(), "did not finish within 50 ms") {
			t.Fatalf("run: %v", err)
		}
	})
	t.Run("a reply to a finished job conflicts", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
		_, err := h.Reply(h.alice, j.ID, json.RawMessage(`{}`))
		wantCode(t, err, venue.ECONFLICT)
	})
	t.Run("waiting for input frees the worker", func(t *testing.T) {
		h := mustEngine(t, func(c *runtime.Config) { c.Workers = 1 })
		asking := h.invoke(t, "v/test/ops/ask", `{}`, 0)
		h.waitStatus(t, asking.ID, venue.StatusInputRequired)
		if j := h.invoke(t, "v/test/ops/echo", `{}`, 5*time.Second); j.Status != venue.StatusComplete {
			t.Fatalf("a job waiting for input held the only worker: echo is %s", j.Status)
		}
	})
}

func TestEngine_Delete(t *testing.T) {
	h := mustEngine(t)
	running := h.invoke(t, "v/test/ops/never", `{}`, 0)
	wantCode(t, h.DeleteJob(h.alice, running.ID), venue.ECONFLICT)
	done := h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
	if err := h.DeleteJob(h.alice, done.ID); err != nil {
		t.Fatal(err)
	}
	_, err := h.Job(h.alice, done.ID)
	wantCode(t, err, venue.ENOTFOUND)
	wantCode(t, h.DeleteJob(h.alice, done.ID), venue.ENOTFOUND)
}

// TestEngine_FinishedJobsBelongToTheirCaller: a finished job, read from
// the engine's memory of recent records on a single-node store, is its
// caller's as much as one read from the store.
func TestEngine_FinishedJobsBelongToTheirCaller(t *testing.T) {
	h := mustEngine(t)
	done := h.invoke(t, "v/test/ops/echo", `{"x":1}`, time.Minute)
	if j, err := h.Job(h.alice, done.ID); err != nil || j.Status != venue.StatusComplete {
		t.Fatalf("the caller reads %v, %v", j, err)
	}
	_, err := h.Job(h.bob, done.ID)
	wantCode(t, err, venue.ENOTFOUND)
	wantCode(t, h.DeleteJob(h.bob, done.ID), venue.ENOTFOUND)
	if _, err := h.Job(h.alice, done.ID); err != nil {
		t.Fatalf("another caller's delete touched the job: %v", err)
	}
}

func TestEngine_JobsBelongToTheirCaller(t *testing.T) {
	h := mustEngine(t)
	mine := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, mine.ID, venue.StatusStarted)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"read", func() error { _, err := h.Job(h.bob, mine.ID); return err }},
		{"cancel", func() error { _, err := h.Cancel(h.bob, mine.ID); return err }},
		{"pause", func() error { _, err := h.Pause(h.bob, mine.ID); return err }},
		{"resume", func() error { _, err := h.Resume(h.bob, mine.ID); return err }},
		{"reply", func() error { _, err := h.Reply(h.bob, mine.ID, json.RawMessage(`{}`)); return err }},
		{"delete", func() error { return h.DeleteJob(h.bob, mine.ID) }},
		{"watch", func() error { _, err := h.Watch(h.bob, mine.ID); return err }},
	} {
		t.Run(tc.name+" is not found for another caller", func(t *testing.T) {
			wantCode(t, tc.call(), venue.ENOTFOUND)
		})
	}
	if ids, total, _ := h.Jobs(h.bob, 0, -1); len(ids) != 0 || total != 0 {
		t.Fatalf("bob lists alice's jobs: %v", ids)
	}
	if j, _ := h.Job(h.alice, mine.ID); j.Status != venue.StatusStarted {
		t.Fatalf("bob's attempts changed alice's job: %s", j.Status)
	}
}

func TestEngine_JobsListsOldestFirst(t *testing.T) {
	h := mustEngine(t)
	var want []venue.JobID
	for range 5 {
		want = append(want, h.invoke(t, "v/test/ops/echo", `{}`, time.Minute).ID)
	}
	ids, total, err := h.Jobs(h.alice, 1, 2)
	if err != nil || total != 5 || len(ids) != 2 || ids[0] != want[1] || ids[1] != want[2] {
		t.Fatalf("page: %v total %d %v", ids, total, err)
	}
}

func TestEngine_WatchStreamsUntilTerminal(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 50}`, 0)
	ch, err := h.Watch(h.alice, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []venue.JobStatus
	for rec := range ch {
		seen = append(seen, rec.Status)
	}
	if len(seen) == 0 || seen[len(seen)-1] != venue.StatusComplete {
		t.Fatalf("watched %v, want it to end with COMPLETE", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Fatalf("watched %v: a status repeated", seen)
		}
	}
}

func TestEngine_GridJobResult(t *testing.T) {
	h := mustEngine(t)
	j := h.invoke(t, "v/test/ops/delay", `{"ms": 30, "value": 5}`, 0)
	out, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "v/ops/grid/job-result",
		Input: json.RawMessage(`{"id": "` + j.ID.String() + `", "timeout": 5000}`)})
	if err != nil || string(out) != `{"slept":30,"value":5}` {
		t.Fatalf("job-result: %s %v", out, err)
	}
	slow := h.invoke(t, "v/test/ops/never", `{}`, 0)
	_, err = h.Run(h.alice, runtime.InvokeRequest{Operation: "v/ops/grid/job-result",
		Input: json.RawMessage(`{"id": "` + slow.ID.String() + `", "timeout": 20}`)})
	if err == nil {
		t.Fatal("job-result of a running job succeeded")
	}
	_, err = h.Run(h.bob, runtime.InvokeRequest{Operation: "v/ops/grid/job-result",
		Input: json.RawMessage(`{"id": "` + j.ID.String() + `"}`)})
	if err == nil {
		t.Fatal("bob read the result of alice's job")
	}
}

func TestEngine_AuthRequiredAndRejected(t *testing.T) {
	h := mustEngine(t)
	t.Run("a job waiting for authorisation is AUTH_REQUIRED until answered", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/ask", `{"question": {"signIn": "https://idp.example/authorize"}, "auth": true}`, 0)
		asked := h.waitStatus(t, j.ID, venue.StatusAuthRequired)
		if string(asked.Message) != `{"signIn":"https://idp.example/authorize"}` {
			t.Fatalf("message %s", asked.Message)
		}
		if _, err := h.Pause(h.alice, j.ID); err != nil {
			t.Fatalf("pause from AUTH_REQUIRED: %v", err)
		}
		h.Resume(h.alice, j.ID)
		h.waitStatus(t, j.ID, venue.StatusAuthRequired)
		h.Reply(h.alice, j.ID, json.RawMessage(`{"token": "granted"}`))
		h.waitStatus(t, j.ID, venue.StatusComplete)
	})
	t.Run("an operation refusing on policy rejects its job", func(t *testing.T) {
		j := h.invoke(t, "v/test/ops/error", `{"message": "not allowed here", "reject": true}`, time.Minute)
		if j.Status != venue.StatusRejected || j.Error != "not allowed here" || j.Output != nil {
			t.Fatalf("got %s %q", j.Status, j.Error)
		}
	})
}

// TestEngine_AwaitingJobGivesUpItsSlot: grid:job-result waits for another
// job without holding a worker slot, which the awaited job may need to go
// on (a re-audit's job-result held the only one until its timeout).
func TestEngine_AwaitingJobGivesUpItsSlot(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.Workers = 1 })
	ask := h.invoke(t, "v/test/ops/ask", `{}`, 0)
	h.waitStatus(t, ask.ID, venue.StatusInputRequired)
	res := h.invoke(t, "v/ops/grid/job-result", `{"id": "`+ask.ID.String()+`", "timeout": 20000}`, 0)
	h.waitStatus(t, res.ID, venue.StatusStarted)
	if _, err := h.Reply(h.alice, ask.ID, json.RawMessage(`{"colour": "blue"}`)); err != nil {
		t.Fatal(err)
	}
	if done := h.waitStatus(t, res.ID, venue.StatusComplete); string(done.Output) != `{"reply":{"colour":"blue"}}` {
		t.Fatalf("job-result output %s", done.Output)
	}
}

// TestEngine_EndedJobDropsUntakenReplies checks that replies a job never
// took are deleted when it ends, and that an ended job takes no more: they
// used to stay in the store for good, 16 MiB a reply.
func TestEngine_EndedJobDropsUntakenReplies(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := mustEngineOn(t, st)
	j := h.invoke(t, "v/test/ops/never", `{}`, 0)
	h.waitStatus(t, j.ID, venue.StatusStarted)
	for range 3 {
		if _, err := h.Reply(h.alice, j.ID, json.RawMessage(`{"unread": true}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Cancel(h.alice, j.ID); err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, j.ID, venue.StatusCancelled)
	_, err = h.Reply(h.alice, j.ID, json.RawMessage(`{"late": true}`))
	wantCode(t, err, venue.ECONFLICT)
	h.Close() // waits for the record's write, and for the drop it starts
	if msg, err := st.TakeJobMessage(context.Background(), j.ID); err != nil || msg != nil {
		t.Fatalf("a reply of the cancelled job is still queued: %s, %v", msg, err)
	}
}

// TestEngine_PauseEndsAWaitingInvoke checks that an invoke waiting for its
// job answers once the job is paused, as it does once the job asks: only
// the caller can move it on, and the wait held for its whole length.
func TestEngine_PauseEndsAWaitingInvoke(t *testing.T) {
	h := mustEngine(t)
	type answer struct {
		j   *venue.Job
		err error
	}
	got := make(chan answer, 2)
	for _, op := range []string{"invoke", "run"} {
		go func() {
			req := runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`), Wait: time.Minute}
			if op == "run" {
				_, err := h.Run(h.alice, req)
				got <- answer{nil, err}
				return
			}
			j, err := h.Invoke(h.alice, req)
			got <- answer{j, err}
		}()
	}
	var ids []venue.JobID
	for deadline := time.Now().Add(5 * time.Second); len(ids) < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("jobs: %v", ids)
		}
		ids, _, _ = h.Jobs(h.alice, 0, 10)
	}
	for _, id := range ids {
		h.waitStatus(t, id, venue.StatusStarted)
		if _, err := h.Pause(h.alice, id); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case a := <-got:
			if a.j != nil {
				if a.err != nil || a.j.Status != venue.StatusPaused {
					t.Errorf("invoke answered %v, %v; want the PAUSED record", a.j, a.err)
				}
				continue
			}
			wantCode(t, a.err, venue.ECONFLICT)
		case <-time.After(10 * time.Second):
			t.Fatal("a waiting invoke did not answer after its job was paused")
		}
	}
}
