package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_RunMapsFailures: Run hands a job's failure back with the code
// the operation gave it, so /run answers a capability denial 403 (401 for
// the anonymous caller), an agent conflict 409, a bad input 400, a
// missing thing 404 and a value past a limit 413, however the job ended; anything else is the venue's
// own failure.
func TestEngine_RunMapsFailures(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct {
		name, input, code, msg string
		status                 venue.JobStatus
	}{
		{"a capability denial", `{"code": "forbidden", "message": "Capability denied: x"}`, venue.EFORBIDDEN, "Capability denied: x", venue.StatusRejected},
		{"an anonymous capability denial", `{"code": "unauthorized", "message": "Capability denied: anonymous"}`, venue.EUNAUTHORIZED, "Capability denied: anonymous", venue.StatusRejected},
		{"a rejection", `{"reject": true, "message": "no"}`, venue.EFORBIDDEN, "no", venue.StatusRejected},
		{"a conflict", `{"code": "conflict", "message": "busy"}`, venue.ECONFLICT, "Operation failed: busy", venue.StatusFailed},
		{"a bad input", `{"message": "bad"}`, venue.EINVALID, "Operation failed: bad", venue.StatusFailed},
		{"a missing thing", `{"code": "not_found", "message": "gone"}`, venue.ENOTFOUND, "Operation failed: gone", venue.StatusFailed},
		{"a value too large", `{"code": "too_large", "message": "Value at w/v would grow past the limit"}`, venue.ETOOLARGE, "Operation failed: Value at w/v would grow past the limit", venue.StatusFailed},
		{"anything else", `{"code": "unavailable", "message": "down"}`, venue.EINTERNAL, "Operation failed: down", venue.StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/error", Input: json.RawMessage(tc.input)})
			if venue.ErrorCode(err) != tc.code || venue.ErrorMessage(err) != tc.msg {
				t.Fatalf("Run: %q (code %s), want %q (code %s)", venue.ErrorMessage(err), venue.ErrorCode(err), tc.msg, tc.code)
			}
			if j := h.invoke(t, "v/test/ops/error", tc.input, time.Minute); j.Status != tc.status {
				t.Fatalf("the job is %s, want %s", j.Status, tc.status)
			}
		})
	}
}

// TestEngine_HeldJobsBound: a caller holding its limit of unfinished jobs
// is refused the next invoke with ETOOMANY until one ends; jobs that end
// at once never pile up.
func TestEngine_HeldJobsBound(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.MaxJobs, c.MaxCallerJobs = 10, 2 })
	for range 5 {
		h.invoke(t, "v/test/ops/echo", `{"n": 1}`, time.Minute) // each ends before the next
	}
	var ids []venue.JobID
	for range 2 {
		ids = append(ids, h.invoke(t, "v/test/ops/never", `{}`, 0).ID)
	}
	_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`)})
	if venue.ErrorCode(err) != venue.ETOOMANY || !strings.Contains(venue.ErrorMessage(err), "you hold 2 on this venue") {
		t.Fatalf("a third unfinished job: %v (code %s), want it refused as too many", err, venue.ErrorCode(err))
	}
	if _, err := h.Invoke(h.bob, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("another caller is refused too: %v", err)
	}
	if _, err := h.Cancel(h.alice, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("after a cancel: %v, want room for one more", err)
	}
}

// TestEngine_PausedJobsHoldNoSlot: a paused job that can resume from its
// record holds none of its caller's job slots (a few identities pausing
// jobs filled the node for good), a resume is refused while the caller
// holds its limit, and runs the job once there is room; a paused job whose
// input only memory holds keeps its slot, for at most the job deadline.
func TestEngine_PausedJobsHoldNoSlot(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.MaxJobs, c.MaxCallerJobs, c.JobTimeout = 10, 2, 300*time.Millisecond })
	never := func() (*venue.Job, error) {
		return h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`)})
	}
	// untilRoom invokes until the slots paused jobs gave back are free: they
	// are given back once the PAUSED record is stored.
	untilRoom := func() *venue.Job {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			j, err := never()
			if err == nil {
				return j
			}
			if venue.ErrorCode(err) != venue.ETOOMANY || time.Now().After(deadline) {
				t.Fatalf("invoke after pausing: %v", err)
			}
		}
	}
	var paused []venue.JobID
	for range 2 {
		j := h.invoke(t, "v/test/ops/never", `{}`, 0)
		h.waitStatus(t, j.ID, venue.StatusStarted)
		if _, err := h.Pause(h.alice, j.ID); err != nil {
			t.Fatal(err)
		}
		paused = append(paused, j.ID)
	}
	running := []venue.JobID{untilRoom().ID, untilRoom().ID}
	if _, err := h.Resume(h.alice, paused[0]); venue.ErrorCode(err) != venue.ETOOMANY {
		t.Fatalf("resume while holding the limit: %v, want ETOOMANY", err)
	}
	if j, _ := h.Job(h.alice, paused[0]); j.Status != venue.StatusPaused {
		t.Fatalf("a refused resume left the job %s, want PAUSED", j.Status)
	}
	if _, err := h.Cancel(h.alice, running[0]); err != nil {
		t.Fatal(err)
	}
	if j, err := h.Resume(h.alice, paused[0]); err != nil || j.Status != venue.StatusStarted {
		t.Fatalf("resume with room: %+v, %v", j, err)
	}
	h.waitStatus(t, paused[0], venue.StatusFailed) // it runs again, to its deadline
	if _, err := h.Cancel(h.alice, paused[1]); err != nil {
		t.Fatal(err)
	}
	if j, _ := h.Job(h.alice, paused[1]); j.Status != venue.StatusCancelled {
		t.Fatalf("a paused job let go, cancelled: %s", j.Status)
	}
	h.waitStatus(t, running[1], venue.StatusFailed)

	// A URL's user info is kept only in memory: the job stays held.
	held := h.invoke(t, "v/test/ops/never", `{"url": "https://u:p@example.com/"}`, 0)
	h.waitStatus(t, held.ID, venue.StatusStarted)
	if _, err := h.Pause(h.alice, held.ID); err != nil {
		t.Fatal(err)
	}
	h.invoke(t, "v/test/ops/never", `{}`, 0)
	time.Sleep(50 * time.Millisecond)
	if _, err := never(); venue.ErrorCode(err) != venue.ETOOMANY {
		t.Fatalf("a third job beside one paused with its user info in memory: %v, want ETOOMANY", err)
	}
	j := h.waitStatus(t, held.ID, venue.StatusFailed)
	if !strings.Contains(j.Error, "stayed paused longer than the job deadline (300ms)") {
		t.Fatalf("error %q", j.Error)
	}
}

// TestEngine_HeldInputBound: the bytes of the inputs a caller's unfinished
// jobs hold are bounded too, and a job's end gives its bytes back.
func TestEngine_HeldInputBound(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.MaxCallerBytes = 100 })
	input := json.RawMessage(`{"pad": "` + strings.Repeat("x", 50) + `"}`) // 61 bytes
	first, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: input})
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: input})
	if venue.ErrorCode(err) != venue.ETOOMANY || !strings.Contains(venue.ErrorMessage(err), "would pass the limit of 100 bytes") {
		t.Fatalf("a second job past the caller's bytes: %v (code %s)", err, venue.ErrorCode(err))
	}
	if _, err := h.Cancel(h.alice, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: input}); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
}
