package runtime_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestResolve_BoundCallerReadsOnlyWhatItMay: a caller confined to part of
// its own namespace (a UCAN sent as the bearer granting w/notes read)
// resolved any w/ or o/ path of its issuer as an operation, reading it
// without a check: a string held there came back in the error ("it holds
// the reference sk-live-..."), an object told it was there, and operation
// metadata stored there was described and run.
func TestResolve_BoundCallerReadsOnlyWhatItMay(t *testing.T) {
	h := mustEngine(t)
	alice, _ := venue.CallerFrom(h.alice)
	if err := h.Write(h.alice, "w/private/apikey", json.RawMessage(`"sk-live-ALICE-SECRET-1234"`)); err != nil {
		t.Fatal(err)
	}
	if err := h.Write(h.alice, "o/echo", json.RawMessage(`"v/test/ops/echo"`)); err != nil {
		t.Fatal(err)
	}
	share := venue.WithCaller(h.alice, alice.Bounded([]venue.Capability{
		{With: alice.DID + "/w/notes", Can: venue.AbilityRead},
		{With: alice.DID + "/j", Can: venue.AbilityInvoke}, {With: alice.DID + "/j", Can: venue.AbilityRead}}))
	for _, ref := range []string{"w/private/apikey", "o/echo", "w/private/none"} {
		_, err := h.Invoke(share, runtime.InvokeRequest{Operation: ref, Input: json.RawMessage(`{}`), Wait: 5 * time.Second})
		if err == nil || strings.Contains(venue.ErrorMessage(err), "sk-live") || venue.ErrorCode(err) != venue.EFORBIDDEN {
			t.Errorf("invoke %s as a share of w/notes: %v, want a capability denial", ref, err)
		}
		if op, err := h.Operation(share, ref); err == nil {
			t.Errorf("Operation(%s) as a share of w/notes: %+v", ref, op)
		}
	}
	// The unconfined owner still resolves its pin.
	if _, err := h.Operation(h.alice, "o/echo"); err != nil {
		t.Fatalf("the owner's own pin: %v", err)
	}
}

// TestPinnedOperations_Bounded: the pins a listing reads are bounded in
// bytes, not only in number (256 pins of 1 MB took 1.5 GB per listing).
func TestPinnedOperations_Bounded(t *testing.T) {
	h := mustEngine(t)
	desc := strings.Repeat("d", 200<<10)
	for i := range 20 {
		meta := fmt.Sprintf(`{"name":"p%d","description":%q,"operation":{"adapter":"test:echo"}}`, i, desc)
		if err := h.Write(h.alice, fmt.Sprintf("o/p%02d", i), json.RawMessage(meta)); err != nil {
			t.Fatal(err)
		}
	}
	ops, err := h.PinnedOperations(h.alice)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, op := range ops {
		total += len(op.Meta)
	}
	if len(ops) == 0 || len(ops) == 20 || total > 1<<20 {
		t.Fatalf("%d pins of %d bytes listed, want some but at most 1 MiB of them", len(ops), total)
	}
}
