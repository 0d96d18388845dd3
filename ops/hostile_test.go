package ops

import (
	"strings"
	"syscall"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/ops/opstest"
)

// TestGuest_Hostile runs the worst inputs found for every built-in family
// through the Wasm host. A deadline could stop them, but the operations'
// own bounds must do it first: each case must end by itself, as its case
// says, within opstest.CPU of processor time, and the next call must be
// served as usual. Afterwards the process must be idle: no guest is left
// running.
func TestGuest_Hostile(t *testing.T) {
	s := mustStack(t)
	for _, tc := range opstest.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			s.seed(t, tc.Lattice, nil)
			cpu, start := cpuTime(t), time.Now()
			j := s.run(t, tc.Op, tc.Input)
			used := cpuTime(t) - cpu
			t.Logf("%s after %s, %s of processor time", j.Status, time.Since(start).Round(time.Millisecond), used.Round(time.Millisecond))
			checkHostile(t, tc, j)
			if used > opstest.CPU {
				t.Errorf("the job took %s of processor time, want at most %s", used, opstest.CPU)
			}
			s.mustComplete(t, "v/ops/json/select", `{"key":"a","cases":{"a":1}}`)
		})
	}
	t.Run("nothing runs on", func(t *testing.T) { mustIdle(t) })
}

// checkHostile checks the job ended as the case says.
func checkHostile(t *testing.T, tc opstest.Case, j *venue.Job) {
	t.Helper()
	out := string(j.Output)
	switch {
	case tc.Error != "" && (j.Status != venue.StatusFailed || !strings.Contains(j.Error, tc.Error)):
		t.Fatalf("status %s, error %q, output %.300s; want FAILED with %q", j.Status, j.Error, out, tc.Error)
	case tc.Error == "" && (j.Status != venue.StatusComplete || !strings.Contains(out, tc.Output)):
		t.Fatalf("status %s, error %q, output %.300s; want COMPLETE with %q", j.Status, j.Error, out, tc.Output)
	}
}

// cpuTime is the processor time this process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mustIdle checks the process uses under a tenth of a core for half a
// second: a guest still spinning would use a whole one.
func mustIdle(t *testing.T) {
	t.Helper()
	const window = 500 * time.Millisecond
	cpu := cpuTime(t)
	time.Sleep(window)
	if used := cpuTime(t) - cpu; used > window/10 {
		t.Errorf("the process used %s of processor time in %s of rest", used, window)
	}
}
