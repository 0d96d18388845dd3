package runtime

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestHeldJobs_Bounds walks the bounds: a caller past its own is refused
// with ETOOMANY, any caller past the node's with EUNAVAILABLE, admitted
// jobs are counted past both, and a job given back makes room.
func TestHeldJobs_Bounds(t *testing.T) {
	h := newHeldJobs(3, 2)
	steps := []struct {
		name, did string
		admitted  bool
		give      bool
		wantCode  string
	}{
		{"alice's first", "alice", false, false, ""},
		{"alice's second", "alice", false, false, ""},
		{"alice past her bound", "alice", false, false, venue.ETOOMANY},
		{"bob's first fills the node", "bob", false, false, ""},
		{"bob past the node's bound", "bob", false, false, venue.EUNAVAILABLE},
		{"a job of bob's started by a job", "bob", true, false, ""},
		{"one of alice's ends", "alice", false, true, ""},
		{"the node is still over its bound", "carol", false, false, venue.EUNAVAILABLE},
		{"one of bob's ends", "bob", false, true, ""},
		{"alice has room again", "alice", false, false, ""},
	}
	for _, s := range steps {
		var err error
		switch {
		case s.give:
			h.give(s.did)
		case s.admitted:
			h.add(s.did)
		default:
			err = h.take(s.did)
		}
		if venue.ErrorCode(err) != s.wantCode && !(err == nil && s.wantCode == "") {
			t.Fatalf("%s: %v (code %q), want code %q", s.name, err, venue.ErrorCode(err), s.wantCode)
		}
	}
	if h.total != 3 || h.byCaller["alice"] != 2 || h.byCaller["bob"] != 1 {
		t.Fatalf("held %d, by caller %v; want 3, alice 2, bob 1", h.total, h.byCaller)
	}
	h.give("bob")
	if _, ok := h.byCaller["bob"]; ok {
		t.Fatalf("a caller holding nothing keeps an entry: %v", h.byCaller)
	}
}
