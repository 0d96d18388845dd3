package sql

import (
	"context"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
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

// known reports whether node was heard from (a test's question).
func (p *peers) known(node string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.seen[node]
	return ok
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

// TestPostgres_NodesRelearnEachOtherAfterAnOutage: a Postgres outage
// longer than peerTTL makes every node forget the others (their hellos
// failed or went unheard). Once the listeners are back, a command on one
// node must reach the others at once, not after the next hello (up to
// helloEvery later): in between a pause sent to B was not heard by A,
// which ran the job on.
func TestPostgres_NodesRelearnEachOtherAfterAnOutage(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	b := mustOpen(t, dsn, Options{NodeID: "node-b"})
	notes := make(chan runtime.JobNote, 16)
	if err := a.ListenJobs(t.Context(), func(n runtime.JobNote) { notes <- n }); err != nil {
		t.Fatal(err)
	}
	if err := b.ListenJobs(t.Context(), func(runtime.JobNote) {}); err != nil {
		t.Fatal(err)
	}
	// The hellos settle first: each knows the other, and no answer is on its way.
	for deadline := time.Now().Add(5 * time.Second); !a.peers.known("node-b") || !b.peers.known("node-a"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the nodes did not learn of each other at start")
		}
	}
	time.Sleep(300 * time.Millisecond)
	// What the outage leaves: each forgot the other, and its own grace is over.
	for _, s := range []*Store{a, b} {
		s.peers.mu.Lock()
		s.peers.seen, s.peers.grace = map[string]time.Time{}, time.Time{}
		s.peers.mu.Unlock()
	}
	// The listeners' connections drop and come back.
	var killed int
	err := a.w.QueryRowContext(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'||$1||'%'`, a.channel).Scan(&killed)
	if err != nil || killed != 2 {
		t.Fatalf("terminated %d listeners: %v", killed, err)
	}
	for deadline := time.After(5 * time.Second); ; {
		select {
		case n := <-notes:
			if n.Kind != runtime.NoteResync {
				continue
			}
		case <-deadline:
			t.Fatal("a's listener did not reconnect")
		}
		break
	}
	time.Sleep(500 * time.Millisecond) // b's listener is back too
	id := venue.JobIDAt(time.Now().UnixMilli(), 1)
	row := runtime.JobRow{ID: id, Owner: "did:key:z6MkOwner", Status: venue.StatusPending, Version: 1,
		Created: 1, Updated: 1, Record: []byte(`{}`)}
	if _, err := b.WriteJobs(t.Context(), []runtime.JobRow{row}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.After(2 * time.Second); ; {
		select {
		case n := <-notes:
			if n.Kind != "job" || n.ID != id {
				continue
			}
		case <-deadline:
			t.Fatal("a did not hear of b's write after the outage: the nodes no longer notify each other")
		}
		break
	}
	// Past the grace, each knows the other again (its hello was answered).
	for _, s := range []*Store{a, b} {
		s.peers.mu.Lock()
		s.peers.grace = time.Time{}
		s.peers.mu.Unlock()
	}
	if !a.peers.any() || !b.peers.any() {
		t.Fatalf("after the outage a knows another node: %v, b: %v", a.peers.any(), b.peers.any())
	}
}
