package mcpbridge

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pool keeps open MCP client sessions to bridged servers between calls, so
// that a call does not pay an initialize round trip. A session is keyed by
// the caller it was opened for, the server and the token it was opened
// with, and is lent to one call at a time: a session, and the credentials
// in its transport, never serve another caller or another token. Sessions
// unused for the idle time are closed.
type pool struct {
	idle   time.Duration
	max    int // idle sessions kept per key
	mu     sync.Mutex
	free   map[poolKey][]idleSession
	sweep  *time.Timer // pending while any session is idle
	closed bool        // the venue is shutting down: keep nothing
}

type poolKey struct {
	caller string // the DID of the job's caller
	url    string
	token  string // SHA-256 of the bearer, "" for none
}

type idleSession struct {
	s     *mcp.ClientSession
	since time.Time
}

func newPool(idle time.Duration, max int) *pool {
	return &pool{idle: idle, max: max, free: map[poolKey][]idleSession{}}
}

func keyOf(caller string, s server) poolKey {
	k := poolKey{caller: caller, url: s.url}
	if s.bearer != "" {
		sum := sha256.Sum256([]byte(s.bearer))
		k.token = hex.EncodeToString(sum[:])
	}
	return k
}

// take lends an idle session of k, the most recently used; nil if none.
func (p *pool) take(k poolKey) *mcp.ClientSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.free[k]
	for len(list) > 0 {
		last := list[len(list)-1]
		list = list[:len(list)-1]
		if time.Since(last.since) < p.idle {
			p.set(k, list)
			return last.s
		}
		go last.s.Close()
	}
	p.set(k, list)
	return nil
}

// put takes a session back after a call that left it usable.
func (p *pool) put(k poolKey, s *mcp.ClientSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.free[k]) >= p.max {
		go s.Close()
		return
	}
	p.free[k] = append(p.free[k], idleSession{s: s, since: time.Now()})
	if p.sweep == nil {
		p.sweep = time.AfterFunc(p.idle, p.expire)
	}
}

// close ends every idle session, and every session put back from now on,
// so that shutting down leaves no session open on a remote server.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	if p.sweep != nil {
		p.sweep.Stop()
		p.sweep = nil
	}
	free := p.free
	p.free = map[poolKey][]idleSession{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, list := range free {
		for _, is := range list {
			wg.Go(func() { is.s.Close() })
		}
	}
	wg.Wait()
}

// drop closes every idle session of k: the server forgot one, so it
// likely forgot them all (it restarted).
func (p *pool) drop(k poolKey) {
	p.mu.Lock()
	list := p.free[k]
	delete(p.free, k)
	p.mu.Unlock()
	for _, is := range list {
		go is.s.Close()
	}
}

// expire closes the sessions idle for too long and looks again while any
// remain.
func (p *pool) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var old []*mcp.ClientSession
	for k, list := range p.free {
		kept := list[:0]
		for _, is := range list {
			if time.Since(is.since) >= p.idle {
				old = append(old, is.s)
			} else {
				kept = append(kept, is)
			}
		}
		p.set(k, kept)
	}
	p.sweep = nil
	if len(p.free) > 0 {
		p.sweep = time.AfterFunc(p.idle, p.expire)
	}
	for _, s := range old {
		go s.Close()
	}
}

func (p *pool) set(k poolKey, list []idleSession) {
	if len(list) == 0 {
		delete(p.free, k)
		return
	}
	p.free[k] = list
}
