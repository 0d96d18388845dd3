package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func invokeJob(t *testing.T, c *client, body string) jobJSON {
	t.Helper()
	var j jobJSON
	r := c.do(t, "POST", "/api/v1/invoke", body)
	r.json(t, &j)
	if r.status != 201 {
		t.Fatalf("invoke: %d %s", r.status, r.body)
	}
	return j
}

func TestREST_Jobs(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		done := invokeJob(t, c, `{"operation": "v/test/ops/echo", "wait": true}`)
		t.Run("the list is a flat array of ids", func(t *testing.T) {
			var ids []string
			r := c.do(t, "GET", "/api/v1/jobs", nil)
			r.json(t, &ids)
			if len(ids) != 1 || ids[0] != done.ID || r.header.Get("X-Total-Count") != "1" {
				t.Fatalf("%s", r.body)
			}
		})
		t.Run("ids are accepted without 0x", func(t *testing.T) {
			if r := c.do(t, "GET", "/api/v1/jobs/"+strings.TrimPrefix(done.ID, "0x"), nil); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
		t.Run("reply, pause, resume, cancel and delete follow the spec", func(t *testing.T) {
			asking := invokeJob(t, c, `{"operation": "v/test/ops/ask", "input": {"question": "go?"}}`)
			waitJob(t, c, asking.ID, "INPUT_REQUIRED")
			steps := []struct {
				method, path, body string
				status             int
				want               string
			}{
				{"PUT", "/pause", "", 200, `"status":"PAUSED"`},
				{"PUT", "/pause", "", 409, "Cannot pause"},
				{"PUT", "/resume", "", 200, `"status":"STARTED"`},
				{"PUT", "/resume", "", 409, "Cannot resume"},
				{"PUT", "/delete", "", 409, "cancel it before deleting"},
				{"POST", "", `{"answer": "no", "answer": "yes"}`, 400, `Reply gives the member \"answer\" twice`},
				{"POST", "", `{"answer": "yes"}`, 202, `"queueDepth":1`},
			}
			for _, s := range steps {
				r := c.do(t, s.method, "/api/v1/jobs/"+asking.ID+s.path, s.body)
				if r.status != s.status || !strings.Contains(string(r.body), s.want) {
					t.Fatalf("%s %s: %d %s, want %d with %s", s.method, s.path, r.status, r.body, s.status, s.want)
				}
			}
			j := waitJob(t, c, asking.ID, "COMPLETE")
			if out, _ := json.Marshal(j.Output); string(out) != `{"reply":{"answer":"yes"}}` {
				t.Fatalf("output %s", out)
			}
			for _, s := range []struct {
				method, path string
				status       int
			}{
				{"POST", "", 409}, {"PUT", "/pause", 409}, {"PUT", "/resume", 409},
				{"PUT", "/cancel", 200}, {"PUT", "/delete", 200}, {"GET", "", 404}, {"PUT", "/delete", 404},
			} {
				if r := c.do(t, s.method, "/api/v1/jobs/"+asking.ID+s.path, `{}`); r.status != s.status {
					t.Fatalf("after completion %s %s: %d %s, want %d", s.method, s.path, r.status, r.body, s.status)
				}
			}
		})
		t.Run("cancel returns the final record", func(t *testing.T) {
			j := invokeJob(t, c, `{"operation": "v/test/ops/never"}`)
			var got jobJSON
			r := c.do(t, "PUT", "/api/v1/jobs/"+j.ID+"/cancel", nil)
			r.json(t, &got)
			if r.status != 200 || got.Status != "CANCELLED" {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	})
}

func TestREST_JobEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		j := invokeJob(t, c, `{"operation": "v/test/ops/delay", "input": {"ms": 100}}`)
		req, _ := http.NewRequest("GET", c.base+"/api/v1/jobs/"+j.ID+"/sse", nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		var statuses []string
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		deadline := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
		defer deadline.Stop()
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				event = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				var rec jobJSON
				if err := json.Unmarshal([]byte(v), &rec); err != nil || event != "job-update" || rec.ID != j.ID {
					t.Fatalf("event %q data %s: %v", event, v, err)
				}
				statuses = append(statuses, rec.Status)
			}
		}
		if len(statuses) == 0 || statuses[len(statuses)-1] != "COMPLETE" {
			t.Fatalf("events %v: the stream must end after the terminal record", statuses)
		}
	})
}

// TestREST_HeldJobsBound: past maxCallerJobs unfinished jobs an invoke, or
// a run, is refused with 429 and words that say what to do, and nothing is
// recorded for it; past maxJobs the venue as a whole answers 503.
func TestREST_HeldJobsBound(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.MaxJobs, c.MaxCallerJobs = 2, 1 })
	c := newClient(m)
	never := `{"operation": "v/test/ops/never", "input": {}}`
	if r := c.do(t, "POST", "/api/v1/invoke", never); r.status != 201 {
		t.Fatalf("first invoke: %d %s", r.status, r.body)
	}
	for _, path := range []string{"/api/v1/invoke", "/api/v1/run"} {
		r := c.do(t, "POST", path, never)
		if r.status != 429 || !strings.Contains(r.errorText(t), "Too many unfinished jobs: you hold 1 on this venue") || r.header.Get("Retry-After") == "" {
			t.Fatalf("%s past the caller's bound: %d %s (Retry-After %q), want 429 with Retry-After", path, r.status, r.body, r.header.Get("Retry-After"))
		}
	}
	var ids []string
	c.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
	if len(ids) != 1 {
		t.Fatalf("jobs %v, want only the first: a refused invoke records nothing", ids)
	}
	other := newClient(m)
	other.token = newUser(t).token(t, m)
	if r := other.do(t, "POST", "/api/v1/invoke", never); r.status != 201 {
		t.Fatalf("another caller's invoke: %d %s", r.status, r.body)
	}
	third := newClient(m)
	third.token = newUser(t).token(t, m)
	if r := third.do(t, "POST", "/api/v1/invoke", never); r.status != 503 || !strings.Contains(r.errorText(t), "limit of unfinished jobs (2 jobs") {
		t.Fatalf("past the venue's bound: %d %s, want 503", r.status, r.body)
	}
}
