package sql

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// A flush tells the other nodes what it wrote (NOTIFY), which costs a
// venue alone on its Postgres about a sixth of its throughput for nothing.
// So nodes announce themselves: each sends a hello when it starts listening
// and every helloEvery after, answers the hello of a node it did not know,
// and says goodbye when it closes. A node notifies only while it has heard
// from another node within peerTTL, and during its first startGrace, while
// the answers to its own hello are on their way.
const (
	helloEvery = 30 * time.Second
	peerTTL    = 3 * helloEvery
	startGrace = 5 * time.Second
)

// peers remembers when each other node was last heard from.
type peers struct {
	mu    sync.Mutex
	seen  map[string]time.Time
	grace time.Time // notify until then whatever was heard
}

func newPeers() *peers {
	return &peers{seen: map[string]time.Time{}, grace: time.Now().Add(startGrace)}
}

// heard records a sign of life from node and reports whether it was new.
func (p *peers) heard(node string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	last, known := p.seen[node]
	p.seen[node] = time.Now()
	return !known || time.Since(last) > peerTTL
}

// regrace notifies for startGrace whatever was heard, as at start: after
// a reconnect, while the other nodes answer this one's hello.
func (p *peers) regrace() {
	p.mu.Lock()
	p.grace = time.Now().Add(startGrace)
	p.mu.Unlock()
}

func (p *peers) forget(node string) {
	p.mu.Lock()
	delete(p.seen, node)
	p.mu.Unlock()
}

// any reports whether some other node may be listening.
func (p *peers) any() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Before(p.grace) {
		return true
	}
	for node, t := range p.seen {
		if now.Sub(t) <= peerTTL {
			return true
		}
		delete(p.seen, node)
	}
	return false
}

// announce sends this node's hello or goodbye.
func (s *Store) announce(ctx context.Context, bye bool) error {
	b, _ := json.Marshal(notePayload{Node: s.node, Hello: !bye, Bye: bye})
	_, err := s.w.ExecContext(ctx, "SELECT pg_notify('"+s.channel+"', $1)", string(b))
	return err
}

// greet handles a payload's sender: a node not heard from before gets our
// hello back, so that it learns of us at once rather than at our next one.
func (s *Store) greet(p notePayload) {
	if p.Bye {
		s.peers.forget(p.Node)
		return
	}
	if s.peers.heard(p.Node) && p.Hello {
		if err := s.announce(context.Background(), false); err != nil {
			s.log.Warn("answer a new node's hello", "node", p.Node, "err", err)
		}
	}
}
