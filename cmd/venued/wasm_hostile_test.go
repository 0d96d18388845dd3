package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridvenue/venue/ops/opstest"
)

// TestWasm_HostileBuiltins runs the worst inputs found for the built-in
// operations through a whole venue whose jobs have opstest.Deadline. The
// deadline can stop a guest, but these cases must not need it: each job
// must end by itself as its case says, within opstest.CPU of processor
// time, the venue must answer an ordinary call after each, and once they
// are done the process must be idle.
func TestWasm_HostileBuiltins(t *testing.T) {
	// Never t.Parallel: it reads the whole process's processor time.
	m := MustRunMain(t, "", func(c *Config) { c.JobTimeout, c.MaxBodyBytes = opstest.Deadline.String(), 8<<20 })
	c := newClient(m)
	warmBuiltins(t, c)
	for _, tc := range opstest.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			for path, v := range tc.Lattice {
				mustOK(t, c.run(t, "v/ops/core/write", `{"path":"`+path+`","value":`+v+`}`))
			}
			cpu := processorTime(t)
			var j struct {
				Status, Error string
				Output        json.RawMessage
			}
			c.do(t, "POST", "/api/v1/invoke", `{"operation":"`+tc.Op+`","input":`+tc.Input+`,"wait":true}`).json(t, &j)
			if used := processorTime(t) - cpu; used > opstest.CPU {
				t.Errorf("the job took %s of processor time, want at most %s", used, opstest.CPU)
			}
			out := j.Output
			switch {
			case tc.Error != "" && (j.Status != "FAILED" || !strings.Contains(j.Error, tc.Error)):
				t.Fatalf("status %s, error %q, output %.300s; want FAILED with %q", j.Status, j.Error, out, tc.Error)
			case tc.Error == "" && (j.Status != "COMPLETE" || !strings.Contains(string(out), tc.Output)):
				t.Fatalf("status %s, error %q, output %.300s; want COMPLETE with %q", j.Status, j.Error, out, tc.Output)
			}
			if r := c.run(t, "v/ops/json/select", `{"key":"a","cases":{"a":1}}`); r.status != 200 || string(r.body) != `{"result":1}` {
				t.Fatalf("the venue stopped serving: %d %s", r.status, r.body)
			}
		})
	}
	t.Run("the audit's schema, cancelled, leaves no guest running", func(t *testing.T) {
		j := invokeJob(t, c, `{"operation":"v/ops/schema/validate","input":{"schema":`+opstest.DoublingRefs(60)+`,"value":1}}`)
		c.do(t, "PUT", "/api/v1/jobs/"+j.ID+"/cancel", nil) // 200, or 409 if it has ended already
		mustBeIdle(t)
	})
}

// warmBuiltins waits for the built-in module to compile, which on a busy
// machine can take longer than the deadline of the first call.
func warmBuiltins(t *testing.T, c *client) {
	t.Helper()
	for range 10 {
		if r := c.run(t, "v/ops/json/select", `{"key":"a","cases":{"a":1}}`); r.status == 200 {
			return
		}
	}
	t.Fatal("the built-in module never answered")
}

// processorTime is the processor time this process has used.
func processorTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mustBeIdle checks the process uses under a tenth of a core for half a
// second: a guest still spinning would use a whole one.
func mustBeIdle(t *testing.T) {
	t.Helper()
	const window = 500 * time.Millisecond
	time.Sleep(100 * time.Millisecond) // let the last request's work settle
	cpu := processorTime(t)
	time.Sleep(window)
	if used := processorTime(t) - cpu; used > window/10 {
		t.Errorf("the venue used %s of processor time in %s of rest", used, window)
	}
}
