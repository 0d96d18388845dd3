package venue_test

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestJobStatus_Categories(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      venue.JobStatus
		terminal    bool
		interactive bool
		valid       bool
	}{
		{"pending is active", venue.StatusPending, false, false, true},
		{"started is active", venue.StatusStarted, false, false, true},
		{"complete is terminal", venue.StatusComplete, true, false, true},
		{"failed is terminal", venue.StatusFailed, true, false, true},
		{"cancelled is terminal", venue.StatusCancelled, true, false, true},
		{"rejected is terminal", venue.StatusRejected, true, false, true},
		{"paused is interactive", venue.StatusPaused, false, true, true},
		{"input required is interactive", venue.StatusInputRequired, false, true, true},
		{"auth required is interactive", venue.StatusAuthRequired, false, true, true},
		{"empty is invalid", "", false, false, false},
		{"lower-case spelling is invalid", "complete", false, false, false},
		{"mixed case is invalid", "Pending", false, false, false},
		{"unknown word is invalid", "RUNNING", false, false, false},
		{"padded is invalid", " FAILED", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.status.Terminal(); got != tc.terminal {
				t.Errorf("%q.Terminal() = %v, want %v", tc.status, got, tc.terminal)
			}
			if got := tc.status.Interactive(); got != tc.interactive {
				t.Errorf("%q.Interactive() = %v, want %v", tc.status, got, tc.interactive)
			}
			if got := tc.status.Valid(); got != tc.valid {
				t.Errorf("%q.Valid() = %v, want %v", tc.status, got, tc.valid)
			}
		})
	}
}

func TestJobStatus_Spelling(t *testing.T) {
	// The spelling is part of the wire contract.
	for status, want := range map[venue.JobStatus]string{
		venue.StatusPending: "PENDING", venue.StatusStarted: "STARTED",
		venue.StatusComplete: "COMPLETE", venue.StatusFailed: "FAILED",
		venue.StatusCancelled: "CANCELLED", venue.StatusRejected: "REJECTED",
		venue.StatusPaused: "PAUSED", venue.StatusInputRequired: "INPUT_REQUIRED",
		venue.StatusAuthRequired: "AUTH_REQUIRED",
	} {
		t.Run(want, func(t *testing.T) {
			if string(status) != want {
				t.Errorf("got %q, want %q", status, want)
			}
		})
	}
}
