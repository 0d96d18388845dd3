package runtime_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// TestEngine_Resume_KeepsTheBound: a job of a confined caller (a UCAN sent
// as the bearer: its grants and invoke) paused, then resumed from the
// store (after a restart, or on another node), ran as its owner's whole
// account: the record keeps only the DID. It resumes with the authority of
// whoever resumes it.
func TestEngine_Resume_KeepsTheBound(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v.db")
	bg := context.Background()
	bounded := venue.WithCaller(bg, venue.Caller{DID: "did:key:alice"}.Bounded([]venue.Capability{
		{With: "did:key:alice/j", Can: venue.AbilityInvoke}, {With: "did:key:alice/w/notes", Can: venue.AbilityRead}}))
	st, err := sql.Open(bg, file, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := mustEngineOn(t, st, func(c *runtime.Config) { c.CallerWorkers = 1 })
	if err := h.PutSecretUnchecked(bg, "did:key:alice", "K", "sekrit-value"); err != nil {
		t.Fatal(err)
	}
	if j, err := h.Invoke(bounded, runtime.InvokeRequest{Operation: "v/test/ops/reveal", Input: json.RawMessage(`{"secret":"s/K"}`), Wait: 5 * time.Second}); err != nil || j.Status != venue.StatusRejected {
		t.Fatalf("run at once: %v %v", j, err)
	}
	// With the caller's one worker busy, the job waits PENDING and is paused.
	nev, err := h.Invoke(bounded, runtime.InvokeRequest{Operation: "v/test/ops/never", Input: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	h.waitStatus(t, nev.ID, venue.StatusStarted)
	j, err := h.Invoke(bounded, runtime.InvokeRequest{Operation: "v/test/ops/reveal", Input: json.RawMessage(`{"secret":"s/K"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Pause(bounded, j.ID); err != nil {
		t.Fatal(err)
	}
	h.Cancel(bounded, nev.ID)
	h.Close()
	st.Close()
	st2, err := sql.Open(bg, file, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h2 := mustEngineOn(t, st2)
	if _, err := h2.Resume(bounded, j.ID); err != nil {
		t.Fatal(err)
	}
	got := h2.waitStatus(t, j.ID, venue.StatusRejected)
	if !strings.Contains(got.Error, "Capability denied") {
		t.Fatalf("resumed: %+v", got)
	}
}
