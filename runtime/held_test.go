package runtime

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestHeldJobs_Bounds walks the bounds: a caller past its own count or
// bytes is refused with ETOOMANY, any caller past the node's with
// EUNAVAILABLE, a caller holding nothing may hold one job of any size,
// admitted jobs are counted past every bound, and a job given back makes
// room.
func TestHeldJobs_Bounds(t *testing.T) {
	h := newHeldJobs(held{jobs: 3, bytes: 1000}, held{jobs: 2, bytes: 600})
	const (
		take = iota
		add
		give
	)
	for _, s := range []struct {
		name     string
		act      int
		did      string
		size     int
		wantCode string
	}{
		{"alice's first", take, "alice", 100, ""},
		{"alice's second", take, "alice", 100, ""},
		{"alice past her count", take, "alice", 1, venue.ETOOMANY},
		{"bob past his bytes", take, "bob", 400, ""},
		{"bob's second would pass his bytes", take, "bob", 201, venue.ETOOMANY},
		{"one of alice's ends", give, "alice", 100, ""},
		{"carol's job passes the node's bytes", take, "carol", 501, venue.EUNAVAILABLE},
		{"carol's smaller one fits", take, "carol", 300, ""},
		{"the node is full", take, "dave", 1, venue.EUNAVAILABLE},
		{"a job of bob's started by a job", add, "bob", 500, ""},
		{"bob's ends", give, "bob", 400, ""},
		{"carol's ends", give, "carol", 300, ""},
		{"the node has room again", take, "dave", 1, ""},
	} {
		var err error
		switch s.act {
		case take:
			err = h.take(s.did, s.size)
		case add:
			h.add(s.did, s.size)
		case give:
			h.give(s.did, s.size)
		}
		if got := venue.ErrorCode(err); got != s.wantCode {
			t.Fatalf("%s: %v (code %q), want code %q", s.name, err, got, s.wantCode)
		}
	}
	want := map[string]held{"alice": {1, 100}, "bob": {1, 500}, "dave": {1, 1}}
	if h.total != (held{3, 601}) || len(h.byCaller) != len(want) {
		t.Fatalf("held %+v by %+v, want 3 jobs of 601 bytes by %+v", h.total, h.byCaller, want)
	}
	for did, w := range want {
		if h.byCaller[did] != w {
			t.Fatalf("%s holds %+v, want %+v", did, h.byCaller[did], w)
		}
	}
}

// TestHeldJobs_OneJobOfAnySize: a caller holding nothing may hold one job
// larger than its bound, so that a venue whose body limit passes the bound
// still runs such a job.
func TestHeldJobs_OneJobOfAnySize(t *testing.T) {
	h := newHeldJobs(held{jobs: 10, bytes: 1000}, held{jobs: 5, bytes: 100})
	if err := h.take("alice", 5000); err != nil {
		t.Fatalf("a first job of any size: %v", err)
	}
	if err := h.take("alice", 1); venue.ErrorCode(err) != venue.ETOOMANY {
		t.Fatalf("a second job beside it: %v, want ETOOMANY", err)
	}
	if err := h.take("bob", 1); venue.ErrorCode(err) != venue.EUNAVAILABLE {
		t.Fatalf("another caller's job past the node's bytes: %v, want EUNAVAILABLE", err)
	}
}
