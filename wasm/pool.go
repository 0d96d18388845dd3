package wasm

import (
	"context"
	"sync"
	"time"
)

// poolKey names the instances that may serve a call: those of one module
// for one caller. The venue's own module pools with caller "": its
// operations are trusted and keep nothing between calls. An uploaded
// module's instance never serves two callers, since its globals and heap
// outlive a call.
type poolKey struct {
	mod      *Module
	caller   string
	uploaded bool // a user's operation: its guest code runs under the host's cpuGate
}

// pools keeps idle reactor instances and bounds the live ones (idle, busy,
// or being instantiated, commands included) at MaxInstances. When the
// bound is reached, the oldest idle instance of any pool makes way; when
// none is idle, callers wait for one to finish under their deadline.
type pools struct {
	mu      sync.Mutex
	byKey   map[poolKey][]*instance // idle instances, least recently used first
	live    int
	max     int
	perPool int
	freed   chan struct{} // closed and replaced when a slot or an idle instance frees up while someone waits
	waiting bool          // someone waits on freed
	closed  bool
}

func (ps *pools) init(cfg Config) {
	ps.byKey = map[poolKey][]*instance{}
	ps.max, ps.perPool = cfg.MaxInstances, cfg.PoolSize
	ps.freed = make(chan struct{})
}

// take returns an idle instance for key, or nil with a live slot reserved
// for the caller to fill (a key without a module only reserves). It waits
// while every slot is busy.
func (ps *pools) take(ctx context.Context, key poolKey) (*instance, error) {
	for {
		in, victim, wait, err := ps.tryTake(key)
		if victim != nil {
			victim.close()
		}
		if wait == nil {
			return in, err
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// tryTake is one attempt of take. It returns an instance, or a slot (nil
// instance and nil wait) possibly freed by evicting victim, or the channel
// to wait on.
func (ps *pools) tryTake(key poolKey) (in, victim *instance, wait chan struct{}, err error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	switch {
	case ps.closed:
		return nil, nil, nil, errClosed
	case key.mod != nil && len(ps.byKey[key]) > 0:
		return ps.pop(key, false), nil, nil, nil
	case ps.live < ps.max:
		ps.live++
		return nil, nil, nil, nil
	}
	if k, ok := ps.oldest(); ok {
		return nil, ps.pop(k, true), nil, nil // the victim's slot passes to the caller
	}
	ps.waiting = true
	return nil, nil, ps.freed, nil
}

// pop removes the newest (warmest) or the oldest idle instance of k.
func (ps *pools) pop(k poolKey, oldest bool) *instance {
	idle := ps.byKey[k]
	var in *instance
	if oldest {
		in, idle = idle[0], idle[1:]
	} else {
		in, idle = idle[len(idle)-1], idle[:len(idle)-1]
	}
	if len(idle) == 0 {
		delete(ps.byKey, k)
	} else {
		ps.byKey[k] = idle
	}
	return in
}

// oldest finds the pool whose least recently used instance idled longest.
func (ps *pools) oldest() (poolKey, bool) {
	var best poolKey
	var since time.Time
	for k, idle := range ps.byKey {
		if since.IsZero() || idle[0].idleSince.Before(since) {
			best, since = k, idle[0].idleSince
		}
	}
	return best, !since.IsZero()
}

// put returns in to its pool, or closes it if it is unfit for another call,
// its pool is full or the host is closing.
func (ps *pools) put(in *instance) {
	ps.mu.Lock()
	idle := ps.byKey[in.key]
	keep := !in.broken && !ps.closed && len(idle) < ps.perPool && !in.key.mod.evicted.Load()
	if keep {
		in.idleSince = time.Now()
		ps.byKey[in.key] = append(idle, in)
	} else {
		ps.live--
	}
	ps.signal()
	ps.mu.Unlock()
	if !keep {
		in.close()
	}
}

// release gives back a slot reserved by take and never filled, or one a
// command instance held.
func (ps *pools) release() {
	ps.mu.Lock()
	ps.live--
	ps.signal()
	ps.mu.Unlock()
}

// signal wakes every waiter; they try again (a calm pool allocates nothing).
func (ps *pools) signal() {
	if ps.waiting {
		close(ps.freed)
		ps.freed, ps.waiting = make(chan struct{}), false
	}
}

// drop closes the idle instances of m's pools.
func (ps *pools) drop(m *Module) {
	ps.mu.Lock()
	var idle []*instance
	for k, ins := range ps.byKey {
		if k.mod == m {
			idle = append(idle, ins...)
			delete(ps.byKey, k)
		}
	}
	ps.live -= len(idle)
	ps.signal()
	ps.mu.Unlock()
	for _, in := range idle {
		in.close()
	}
}

// expired removes and returns the instances idle since before cutoff.
func (ps *pools) expired(cutoff time.Time) []*instance {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []*instance
	for k, idle := range ps.byKey {
		n := 0
		for n < len(idle) && idle[n].idleSince.Before(cutoff) {
			n++
		}
		out = append(out, idle[:n]...)
		if n == len(idle) {
			delete(ps.byKey, k)
		} else if n > 0 {
			ps.byKey[k] = idle[n:]
		}
	}
	if len(out) > 0 {
		ps.live -= len(out)
		ps.signal()
	}
	return out
}

// close closes every idle instance and makes the pools refuse new work;
// instances busy now are closed when they come back.
func (ps *pools) close() {
	ps.mu.Lock()
	var idle []*instance
	for _, ins := range ps.byKey {
		idle = append(idle, ins...)
	}
	ps.byKey = map[poolKey][]*instance{}
	ps.live -= len(idle)
	ps.closed = true
	ps.signal()
	ps.mu.Unlock()
	for _, in := range idle {
		in.close()
	}
}

// counts reports how many instances are idle and how many live, for tests.
func (ps *pools) counts() (idle, live int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, ins := range ps.byKey {
		idle += len(ins)
	}
	return idle, ps.live
}
