package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridvenue/venue/sql/sqltest"
)

// twoNodes starts two venue processes on one fresh Postgres schema, as one
// venue behind a load balancer: one URL, so one DID and one anonymous
// identity.
func twoNodes(t *testing.T, opts ...func(*Config)) (a, b *client) {
	t.Helper()
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	on := true
	opts = append([]func(*Config){func(c *Config) { c.URL, c.TestOps = "http://venue.test", &on }}, opts...)
	return newClient(MustRunMain(t, dsn, opts...)), newClient(MustRunMain(t, dsn, opts...))
}

func (c *client) command(t *testing.T, id, what string) reply {
	t.Helper()
	return c.do(t, "PUT", "/api/v1/jobs/"+id+"/"+what, nil)
}

// waitJob polls c until the job has status s.
func (c *client) waitJob(t *testing.T, id, s string) jobJSON {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var j jobJSON
		c.do(t, "GET", "/api/v1/jobs/"+id, nil).json(t, &j)
		if j.Status == s {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s, want %s", id, j.Status, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNodes_ResumeKeepsWhoRunsIt: a job paused on one node and resumed on
// the other runs as the same caller, with what it was given, or not at
// all: an anonymous caller, who may invoke but not write, stays one, and a
// job whose record hides part of its input is refused on the other node
// with a message saying why, not run on the record's copy.
func TestNodes_ResumeKeepsWhoRunsIt(t *testing.T) {
	a, b := twoNodes(t, func(c *Config) {
		c.Auth.Anonymous, c.Workers, c.CallerWorkers = "invoke", 4, 1
	})
	t.Run("an anonymous caller stays anonymous", func(t *testing.T) {
		// The caller's one worker runs a slow job, so the write waits
		// PENDING on a, where it is paused; b resumes it.
		slow := invokeJob(t, a, `{"operation": "v/test/ops/delay", "input": {"ms": 1500}}`)
		w := invokeJob(t, a, `{"operation": "v/ops/core/write", "input": {"path": "w/defaced", "value": 1}}`)
		if r := a.command(t, w.ID, "pause"); r.status != 200 {
			t.Fatalf("pause: %d %s", r.status, r.body)
		}
		b.waitJob(t, w.ID, "PAUSED")
		if r := b.command(t, w.ID, "resume"); r.status != 200 {
			t.Fatalf("resume on b: %d %s", r.status, r.body)
		}
		a.waitJob(t, slow.ID, "COMPLETE")
		var end jobJSON
		for _, s := range []string{"REJECTED", "FAILED", "COMPLETE"} {
			var j jobJSON
			a.do(t, "GET", "/api/v1/jobs/"+w.ID, nil).json(t, &j)
			if j.Status == s {
				end = j
			}
		}
		if end.Status == "" {
			end = b.waitJob(t, w.ID, "REJECTED")
		}
		if end.Status == "COMPLETE" || !strings.Contains(end.Error, "anonymous") {
			t.Fatalf("the resumed write ended %s: %s", end.Status, end.Error)
		}
		if r := a.do(t, "GET", "/api/v1/values/read?path=w/defaced", nil); !strings.Contains(string(r.body), `"exists":false`) {
			t.Fatalf("w/defaced was written: %s", r.body)
		}
	})
}

// TestNodes_CommandsRaceToOneAnswer: commands sent to both nodes at once
// get the answers one node gives: two cancels of one job both answer 200
// with the CANCELLED record; and an invoke waiting on one node for a job
// resumed on the other answers when the job ends there, not at its wait's
// end.
func TestNodes_CommandsRaceToOneAnswer(t *testing.T) {
	a, b := twoNodes(t)
	t.Run("two cancels, one per node", func(t *testing.T) {
		for range 10 {
			j := invokeJob(t, a, `{"operation": "v/test/ops/never", "input": {}}`)
			b.waitJob(t, j.ID, "STARTED")
			var wg sync.WaitGroup
			replies := make([]reply, 2)
			for i, c := range []*client{a, b} {
				wg.Go(func() { replies[i] = c.command(t, j.ID, "cancel") })
			}
			wg.Wait()
			for i, r := range replies {
				if r.status != 200 || !strings.Contains(string(r.body), `"status":"CANCELLED"`) {
					t.Fatalf("cancel through node %d: %d %s", i, r.status, r.body)
				}
			}
		}
	})
	t.Run("a wait answers what the store kept", func(t *testing.T) {
		// A cancel on b as the job ends on a: whichever wins, the waiting
		// invoke on a answers the record the store kept.
		for i := range 30 {
			var j jobJSON
			var wg sync.WaitGroup
			wg.Go(func() {
				a.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": 30}, "wait": true}`).json(t, &j)
			})
			time.Sleep(time.Duration(20+i%15) * time.Millisecond)
			var list []string
			b.do(t, "GET", "/api/v1/jobs", nil).json(t, &list)
			if len(list) > 0 {
				b.command(t, list[len(list)-1], "cancel")
			}
			wg.Wait()
			var stored jobJSON
			b.do(t, "GET", "/api/v1/jobs/"+j.ID, nil).json(t, &stored)
			if stored.Status != j.Status {
				t.Fatalf("round %d: the invoke answered %s, the store keeps %s", i, j.Status, stored.Status)
			}
		}
	})
	t.Run("a wait ends when another node pauses its job", func(t *testing.T) {
		started := time.Now()
		done := make(chan jobJSON, 1)
		go func() {
			var j jobJSON
			a.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": 400}, "wait": 15000}`).json(t, &j)
			done <- j
		}()
		var id string
		for deadline := time.Now().Add(5 * time.Second); id == ""; {
			if time.Now().After(deadline) {
				t.Fatal("the delay job does not show STARTED")
			}
			var list []string
			a.do(t, "GET", "/api/v1/jobs", nil).json(t, &list)
			for _, x := range list {
				var j jobJSON
				a.do(t, "GET", "/api/v1/jobs/"+x, nil).json(t, &j)
				if j.Status == "STARTED" && j.Operation == "v/test/ops/delay" {
					id = x
				}
			}
		}
		if r := b.command(t, id, "pause"); r.status != 200 {
			t.Fatalf("pause on b: %d %s", r.status, r.body)
		}
		// Only a command can move a paused job on, as only a reply an
		// asking one: the wait answers with it, as the node running it
		// learns of the pause.
		if j := <-done; j.Status != "PAUSED" || time.Since(started) > 10*time.Second {
			t.Fatalf("the wait on a answered %s after %v", j.Status, time.Since(started))
		}
		if r := b.command(t, id, "resume"); r.status != 200 {
			t.Fatalf("resume on b: %d %s", r.status, r.body)
		}
		a.waitJob(t, id, "COMPLETE")
	})
}

// TestNodes_RacingCommandsKeepNodesUp: a pause on one node racing a cancel,
// or the job's own end, on the node running it, then a resume: whichever
// write wins, the node running the job keeps serving, no answer contradicts
// what the store kept, and the job ends rather than staying STARTED.
func TestNodes_RacingCommandsKeepNodesUp(t *testing.T) {
	a, b := twoNodes(t)
	for i := range 12 {
		j := invokeJob(t, a, `{"operation": "v/test/ops/delay", "input": {"ms": 40}}`)
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			var now jobJSON
			a.do(t, "GET", "/api/v1/jobs/"+j.ID, nil).json(t, &now)
			if now.Status != "PENDING" || time.Now().After(deadline) {
				break // STARTED, or ended already on a slow machine: the race is then the end's
			}
		}
		time.Sleep(time.Duration(i*4) * time.Millisecond)
		var wg sync.WaitGroup
		var paused, cancelled reply
		wg.Go(func() { paused = b.command(t, j.ID, "pause") })
		if i%2 == 0 {
			wg.Go(func() { cancelled = a.command(t, j.ID, "cancel") })
		}
		wg.Wait()
		a.command(t, j.ID, "resume") // 409 unless PAUSED
		var end jobJSON
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if r := a.do(t, "GET", "/api/v1/status", nil); r.status != 200 {
				t.Fatalf("round %d: node a answers %d", i, r.status)
			}
			b.do(t, "GET", "/api/v1/jobs/"+j.ID, nil).json(t, &end)
			if end.Status == "COMPLETE" || end.Status == "CANCELLED" || end.Status == "PAUSED" {
				break
			}
			if time.Now().After(deadline) {
				onA := a.do(t, "GET", "/api/v1/jobs/"+j.ID, nil)
				onB := b.do(t, "GET", "/api/v1/jobs/"+j.ID, nil)
				t.Fatalf("round %d: the job stays %s (pause answered %d %s, cancel %d %s)\non a: %s\non b: %s",
					i, end.Status, paused.status, paused.body, cancelled.status, cancelled.body, onA.body, onB.body)
			}
		}
		if cancelled.status == 200 {
			var said jobJSON
			cancelled.json(t, &said)
			if said.Status != end.Status {
				t.Fatalf("round %d: the cancel answered %s, the store keeps %s (pause answered %d)", i, said.Status, end.Status, paused.status)
			}
		}
	}
}

// TestNodes_StreamsEndWithWhatTheStoreKept: a stream and a job-result wait
// on the node running a job end with the record the store kept when a
// cancel on the other node wins: one sent before the job's STARTED is
// stored (the stream has shown STARTED under the version the cancel's
// record took), and one sent as the job ends (the stream must not show an
// end the store did not keep).
func TestNodes_StreamsEndWithWhatTheStoreKept(t *testing.T) {
	a, b := twoNodes(t)
	for i := range 24 {
		ms, after := 1000, time.Duration(i%4)*4*time.Millisecond // before STARTED is stored
		if i%2 == 1 {
			ms, after = 100, time.Duration(84+i)*time.Millisecond // as the job ends
		}
		j := invokeJob(t, a, fmt.Sprintf(`{"operation": "v/test/ops/delay", "input": {"ms": %d}}`, ms))
		stream, result := make(chan string, 1), make(chan string, 1)
		go func() { stream <- string(a.do(t, "GET", "/api/v1/jobs/"+j.ID+"/sse", nil).body) }()
		go func() {
			r := a.do(t, "POST", "/api/v1/invoke", `{"operation": "v/ops/grid/job-result", "input": {"id": "`+j.ID+`", "timeout": 20000}, "wait": true}`)
			var rec jobJSON
			r.json(t, &rec)
			result <- rec.Status // COMPLETE with the job's output, or FAILED with its error
		}()
		time.Sleep(after)
		b.command(t, j.ID, "cancel")
		var body, waited string
		for got := 0; got < 2; got++ {
			select {
			case body = <-stream:
			case waited = <-result:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: the stream or the job-result wait on the running node did not end", i)
			}
		}
		var stored jobJSON
		b.do(t, "GET", "/api/v1/jobs/"+j.ID, nil).json(t, &stored)
		want := "FAILED"
		if stored.Status == "COMPLETE" {
			want = "COMPLETE"
		}
		if last := lastEventStatus(t, body); last != stored.Status || waited != want {
			t.Fatalf("round %d: the stream ended with %s and job-result %s; the store keeps %s\n%s", i, last, waited, stored.Status, body)
		}
	}
}

// lastEventStatus is the status in an SSE body's last record.
func lastEventStatus(t *testing.T, body string) string {
	t.Helper()
	i := strings.LastIndex(body, "\ndata: ")
	if i < 0 {
		t.Fatalf("no event in %q", body)
	}
	line, _, _ := strings.Cut(body[i+len("\ndata: "):], "\n")
	var rec jobJSON
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("event %q: %v", line, err)
	}
	return rec.Status
}
