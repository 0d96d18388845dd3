package sql

import (
	"context"
	"testing"
	"time"

	"github.com/gridvenue/venue/runtime"
)

func TestPostgres_NotifyOnlyWhileAnotherNodeListens(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	listen := func(s *Store) {
		t.Helper()
		if err := s.ListenJobs(t.Context(), func(runtime.JobNote) {}); err != nil {
			t.Fatal(err)
		}
		s.peers.grace = time.Time{} // end the start-up grace now
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not happen", what)
			}
		}
	}
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	listen(a)
	if a.peers.any() {
		t.Fatal("a node alone believes another listens")
	}
	b, err := Open(context.Background(), dsn, Options{NodeID: "node-b"})
	if err != nil {
		t.Fatal(err)
	}
	listen(b)
	eventually("a hearing b's hello", a.peers.any)
	eventually("b hearing a's answer", b.peers.any)
	b.Close()
	eventually("a hearing b's goodbye", func() bool { return !a.peers.any() })
}

func TestPeers_ExpireAfterTheirTTL(t *testing.T) {
	p := newPeers()
	p.grace = time.Time{}
	if !p.heard("x") || p.heard("x") {
		t.Fatal("heard reports a new node once")
	}
	p.seen["x"] = time.Now().Add(-peerTTL - time.Second)
	if p.any() {
		t.Fatal("a node silent for longer than peerTTL still counts")
	}
	if !p.heard("x") {
		t.Fatal("a node back after expiring is new again")
	}
}
