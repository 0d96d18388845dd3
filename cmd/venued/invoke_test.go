package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/internal/logbuf"
)

type jobJSON struct {
	ID        string   `json:"id"`
	Status    string   `json:"status"`
	Created   int64    `json:"created"`
	Updated   int64    `json:"updated"`
	Operation string   `json:"operation"`
	Op        string   `json:"op"`
	Output    any      `json:"output"`
	Error     string   `json:"error"`
	Message   any      `json:"message"`
	Prev      *jobJSON `json:"prev"`
}

func TestREST_Invoke(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		t.Run("wait true returns the final record with 201", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"hello": "world"}, "wait": true}`)
			var j jobJSON
			r.json(t, &j)
			if r.status != 201 || j.Status != "COMPLETE" || j.Operation != "v/test/ops/echo" || j.Op != j.Operation {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if out, _ := j.Output.(map[string]any); out["hello"] != "world" {
				t.Fatalf("output %v", j.Output)
			}
			if r.header.Get("Location") != "/api/v1/jobs/"+j.ID || !strings.HasPrefix(j.ID, "0x") || len(j.ID) != 34 {
				t.Fatalf("Location %q id %q", r.header.Get("Location"), j.ID)
			}
			if j.Prev == nil || j.Prev.Status != "STARTED" || j.Prev.Prev == nil || j.Prev.Prev.Status != "PENDING" {
				t.Fatalf("prev chain %s", r.body)
			}
		})
		t.Run("without wait the job is PENDING and then completes", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": 20}}`)
			var j jobJSON
			r.json(t, &j)
			if r.status != 201 || j.Status != "PENDING" {
				t.Fatalf("%d %s", r.status, r.body)
			}
			waitJob(t, c, j.ID, "COMPLETE")
		})
		for _, tc := range []struct{ name, wait, want string }{
			{"wait as milliseconds", `"wait": 5000`, "COMPLETE"},
			{"wait as a string", `"wait": "true"`, "COMPLETE"},
			{"wait as a digit string", `"wait": "5000"`, "COMPLETE"},
			{"a wait past 64 bits is cut, as a number's is", `"wait": "99999999999999999999"`, "COMPLETE"},
			{"wait false", `"wait": false`, "PENDING"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", `+tc.wait+`}`)
				var j jobJSON
				r.json(t, &j)
				if r.status != 201 || j.Status != tc.want {
					t.Fatalf("%d %s", r.status, r.body)
				}
			})
		}
		t.Run("the wait query parameter wins", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/invoke?wait=true", `{"operation": "v/test/ops/echo", "wait": false}`)
			var j jobJSON
			r.json(t, &j)
			if j.Status != "COMPLETE" {
				t.Fatalf("%s", r.body)
			}
		})
		t.Run("a failed job has its error and a null output", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/error", "input": {"message": "boom"}, "wait": true}`)
			var j jobJSON
			r.json(t, &j)
			if r.status != 201 || j.Status != "FAILED" || j.Error != "boom" || j.Output != nil || !strings.Contains(string(r.body), `"output":null`) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
		t.Run("run answers with the bare output", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/run", `{"operation": "v/test/ops/echo", "input": {"x": [1, 2]}}`)
			if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"x":[1,2]}` {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
		t.Run("run reports a failed job as an error", func(t *testing.T) {
			r := c.do(t, "POST", "/api/v1/run", `{"operation": "v/test/ops/error", "input": {"message": "nope"}}`)
			if r.status < 400 || r.errorText(t) != "Operation failed: nope" {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	})
}

// waitJob polls a job until it has status want.
func waitJob(t *testing.T, c *client, id, want string) jobJSON {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var j jobJSON
		r := c.do(t, "GET", "/api/v1/jobs/"+id, nil)
		r.json(t, &j)
		if j.Status == want {
			return j
		}
		if r.status != 200 || time.Now().After(deadline) {
			t.Fatalf("job %s: %d %s, want %s", id, r.status, r.body, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// syncBuffer is a log sink the server's goroutines may write at once.
type syncBuffer = logbuf.Buffer

// TestREST_RunFailureIsNotTheVenuesError checks that /run answering a
// failed operation with 500, as the reference does, logs a warning, not an
// error: a guest failing on purpose must not fill the operator's log with
// errors.
func TestREST_RunFailureIsNotTheVenuesError(t *testing.T) {
	var logs syncBuffer
	cfg := defaultConfig()
	cfg.Listen = "127.0.0.1:0"
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	c := newClient(m)
	r := c.do(t, "POST", "/api/v1/run", `{"operation": "v/test/ops/error", "input": {"message": "crashed", "code": "internal"}}`)
	if r.status != 500 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if !strings.Contains(logs.String(), `level=WARN msg=request method=POST path=/api/v1/run status=500`) || strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("log:\n%s", logs.String())
	}
}
