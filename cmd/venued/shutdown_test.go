package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/sql/sqltest"
)

// TestMain_ShutdownEndsStreamsAndWaits stops a venue the way a SIGTERM
// does (main cancels serve's context) while a job's event stream and an
// invoke waiting on a job that never ends are open, and an MCP session's
// stream too: the venue must stop promptly, answer the wait, end the
// streams and exit 0.
func TestMain_ShutdownEndsStreamsAndWaits(t *testing.T) {
	for _, st := range sqltest.Stores(t) {
		t.Run(st.Name, func(t *testing.T) {
			cfg := defaultConfig()
			cfg.Listen, cfg.Store = "127.0.0.1:0", st.DSN
			m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			started, exited := make(chan struct{}), make(chan int, 1)
			go func() { exited <- serve(ctx, m, func() { close(started) }) }()
			select {
			case <-started:
			case code := <-exited:
				t.Fatalf("the venue did not start: exit %d", code)
			}
			c := newClient(m)
			job := invokeJob(t, c, `{"operation": "v/test/ops/never"}`)

			resp, err := http.Get(c.base + "/api/v1/jobs/" + job.ID + "/sse")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			events := bufio.NewScanner(resp.Body)
			if !events.Scan() || !strings.HasPrefix(events.Text(), "event: job-update") {
				t.Fatalf("no first event: %q", events.Text())
			}
			sid := mcpInit(t, c)
			req, _ := http.NewRequest("GET", c.base+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			mcpStream, err := http.DefaultClient.Do(req)
			if err != nil || mcpStream.StatusCode != 200 {
				t.Fatalf("MCP stream: %v %v", mcpStream, err)
			}
			defer mcpStream.Body.Close()
			waited, ran := make(chan reply, 1), make(chan reply, 1)
			go func() { waited <- c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/never", "wait": true}`) }()
			go func() { ran <- c.run(t, "v/test/ops/never", `{}`) }()
			time.Sleep(300 * time.Millisecond) // the wait is under way

			begun := time.Now()
			stop()
			select {
			case code := <-exited:
				if code != 0 {
					t.Fatalf("exit %d after a normal stop", code)
				}
			case <-time.After(8 * time.Second):
				t.Fatal("the venue did not stop within 8 s")
			}
			t.Logf("stopped in %s", time.Since(begun).Round(time.Millisecond))
			// The engine stops before the waits and streams end, so each
			// is told how its job ended.
			const failed = "The venue shut down while the job was running"
			if r := <-waited; r.status != 201 || !strings.Contains(string(r.body), `"status":"FAILED"`) ||
				!strings.Contains(string(r.body), failed) {
				t.Fatalf("the waiting invoke got %d %s", r.status, r.body)
			}
			if r := <-ran; r.status != 503 || !strings.Contains(r.errorText(t), failed) {
				t.Fatalf("the waiting run got %d %s", r.status, r.body)
			}
			io.Copy(io.Discard, mcpStream.Body) // ends, or the test times out
			var last string
			for events.Scan() {
				if strings.HasPrefix(events.Text(), "data: ") {
					last = events.Text()
				}
			}
			if err := events.Err(); err != nil {
				t.Fatalf("the event stream broke instead of ending: %v", err)
			}
			if !strings.Contains(last, `"status":"FAILED"`) || !strings.Contains(last, failed) {
				t.Fatalf("the event stream ended on %s, not on the job's end", last)
			}
		})
	}
}

// TestMain_ShutdownSettlesJobsWhileSlowConnectionsDrain: a stop records how
// the running jobs ended after the requests' short grace, not after the
// whole drain of a slow upload (10 s, which a container stop does not wait
// for: the venue would be killed with its jobs still STARTED).
func TestMain_ShutdownSettlesJobsWhileSlowConnectionsDrain(t *testing.T) {
	cfg := defaultConfig()
	cfg.Listen = "127.0.0.1:0"
	logs := &syncBuffer{}
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	started, exited := make(chan struct{}), make(chan int, 1)
	go func() { exited <- serve(ctx, m, func() { close(started) }) }()
	<-started
	c := newClient(m)
	job := invokeJob(t, c, `{"operation": "v/test/ops/never"}`)
	var asset string
	c.do(t, "POST", "/api/v1/assets", `{"name": "slow", "content": {"sha256": "`+strings.Repeat("ab", 32)+`"}}`).json(t, &asset)
	conn, err := net.Dial("tcp", m.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /api/v1/assets/%s/content HTTP/1.1\r\nHost: %s\r\nContent-Length: 600000\r\n\r\n%s", asset, m.Addr, strings.Repeat("x", 1000))
	time.Sleep(100 * time.Millisecond) // the upload is under way, and stalls
	stop()
	time.Sleep(drainGrace + 1500*time.Millisecond) // well within the drain's 10 s
	id, _ := venue.ParseJobID(job.ID)
	row, err := m.store.Job(context.Background(), id)
	if err != nil || row.Status != venue.StatusFailed {
		t.Fatalf("the running job is stored %s (%v) while the upload drains", row.Status, err)
	}
	// The upload goes on through the drain: its whole body is read and
	// hashed (against a made-up sha256, so refused as a mismatch).
	conn.Write([]byte(strings.Repeat("x", 599_000))) // past a staged chunk (256 KiB)
	answer, _ := io.ReadAll(io.LimitReader(conn, 4096))
	if !strings.Contains(string(answer), "400 Bad Request") || !strings.Contains(string(answer), "hash mismatch") {
		t.Fatalf("the upload's answer during the drain: %s", answer)
	}
	// The wait was said, with what it waits for.
	if !regexp.MustCompile(`waiting for the connections still busy .* open=[1-9]`).MatchString(logs.String()) {
		t.Fatalf("the drain's wait was not logged:\n%s", logs)
	}
	conn.Close()
	if code := <-exited; code != 0 {
		t.Fatalf("exit %d", code)
	}
}
