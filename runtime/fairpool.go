package runtime

import (
	"container/list"
	"context"
	"sync"
)

// fairPool bounds how many jobs run uploaded code at once, and gives a slot
// that frees to the waiting caller that holds the fewest, the one that has
// waited longest among equals; a caller's own jobs keep their arrival
// order. In arrival order alone, a crowd of identities, each within its
// caller bound, queued ahead of another caller would keep that caller's
// uploaded code waiting until the whole crowd had run; this way it runs as
// soon as any slot frees. A slot is handed to its waiter directly, so a
// newcomer cannot take it first while anyone waits.
type fairPool struct {
	max     int
	mu      sync.Mutex
	used    int
	held    map[string]int        // slots held, by caller
	waiting map[string]*list.List // of *fairWaiter, by caller, oldest first
	nwait   int
	seq     uint64
}

type fairWaiter struct {
	granted chan struct{}
	seq     uint64 // arrival order, across callers
}

func newFairPool(n int) *fairPool {
	return &fairPool{max: n, held: map[string]int{}, waiting: map[string]*list.List{}}
}

// acquire waits for a slot for caller, or until ctx ends.
func (p *fairPool) acquire(ctx context.Context, caller string) error {
	p.mu.Lock()
	if p.used < p.max && p.nwait == 0 {
		p.take(caller)
		p.mu.Unlock()
		return nil
	}
	w := &fairWaiter{granted: make(chan struct{}), seq: p.seq}
	p.seq++
	q := p.waiting[caller]
	if q == nil {
		q = list.New()
		p.waiting[caller] = q
	}
	el := q.PushBack(w)
	p.nwait++
	p.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	select {
	case <-w.granted: // handed a slot as it gave up: hand it on
		p.mu.Unlock()
		p.release(caller)
	default:
		p.leave(caller, q, el)
		p.mu.Unlock()
	}
	return context.Cause(ctx)
}

// release gives one of caller's slots back, to the next waiter if any.
func (p *fairPool) release(caller string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held[caller]--; p.held[caller] <= 0 {
		delete(p.held, caller)
	}
	p.used--
	for p.used < p.max && p.nwait > 0 {
		next, q := p.nextCaller()
		w := p.leave(next, q, q.Front())
		p.take(next)
		close(w.granted)
	}
}

// nextCaller is the waiting caller holding the fewest slots, the one whose
// first job came earliest among equals. It looks at every waiting caller:
// they are few unless many identities queue at once, and each of them
// holds a caller slot and a job within the venue's bounds.
func (p *fairPool) nextCaller() (string, *list.List) {
	var (
		best  string
		bestQ *list.List
	)
	for caller, q := range p.waiting {
		if bestQ == nil || p.held[caller] < p.held[best] ||
			p.held[caller] == p.held[best] && q.Front().Value.(*fairWaiter).seq < bestQ.Front().Value.(*fairWaiter).seq {
			best, bestQ = caller, q
		}
	}
	return best, bestQ
}

func (p *fairPool) take(caller string) {
	p.used++
	p.held[caller]++
}

// leave takes the waiter at el out of caller's queue q.
func (p *fairPool) leave(caller string, q *list.List, el *list.Element) *fairWaiter {
	w := q.Remove(el).(*fairWaiter)
	if q.Len() == 0 {
		delete(p.waiting, caller)
	}
	p.nwait--
	return w
}
