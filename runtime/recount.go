package runtime

import (
	"context"
	"sync"
	"time"
)

// How long a count is reused (see recounts). Counting rows is linear in
// them, and /status counts on every call: the caller's jobs (everyone
// without a token shares one caller, with hundreds of thousands of jobs),
// the assets and the users. Reusing a count for recountFactor times as long
// as it took keeps the time spent counting one key under 1/(1+recountFactor)
// of a core however large the tables grow, and a count that takes
// milliseconds is reused for recountMin.
const (
	recountFactor = 20
	recountMin    = time.Second
	recountKeys   = 1024 // keys kept; a caller's jobs are one key each
)

// recounts reuses counts that may be a few seconds stale. One count per key
// is in flight at a time: callers asking meanwhile wait for it rather than
// count too, so a crowd of pollers costs one query. The count runs under
// the engine's life, not a caller's request, so a caller that gives up
// does not fail the others waiting on its count.
type recounts struct {
	life context.Context
	now  func() time.Time
	max  int
	mu   sync.Mutex
	keys map[string]*recount
}

// recount is one key's count, in flight until ready is closed.
type recount struct {
	ready chan struct{}
	n     int
	err   error
	until time.Time // reused before then; zero after an error, which is not reused
}

func newRecounts(life context.Context, now func() time.Time, max int) *recounts {
	return &recounts{life: life, now: now, max: max, keys: map[string]*recount{}}
}

// done reports whether the count is ready; only then are its fields set.
func (r *recount) done() bool {
	select {
	case <-r.ready:
		return true
	default:
		return false
	}
}

// get returns the count under key: a fresh one if kept, else the one in
// flight, else a new one from count.
func (c *recounts) get(ctx context.Context, key string, count func(context.Context) (int, error)) (int, error) {
	r := c.entry(key, count)
	select {
	case <-r.ready:
		return r.n, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// entry returns key's fresh or in-flight count, starting one if it has
// neither.
func (c *recounts) entry(key string, count func(context.Context) (int, error)) *recount {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if r, ok := c.keys[key]; ok && (!r.done() || now.Before(r.until)) {
		return r
	}
	r := &recount{ready: make(chan struct{})}
	c.makeRoom(now)
	c.keys[key] = r
	go c.fill(r, count)
	return r
}

// fill counts and says for how long the count may be reused.
func (c *recounts) fill(r *recount, count func(context.Context) (int, error)) {
	start := c.now()
	r.n, r.err = count(c.life)
	if r.err == nil {
		end := c.now()
		r.until = end.Add(max(recountMin, recountFactor*end.Sub(start)))
	}
	close(r.ready)
}

// makeRoom keeps the keys under max: it forgets stale counts and, if none
// is stale, the one that goes stale first. A count in flight is never
// forgotten (its waiters hold it anyway), so the keys pass max only while
// more than max counts are under way at once.
func (c *recounts) makeRoom(now time.Time) {
	if len(c.keys) < c.max {
		return
	}
	var (
		first      string
		firstUntil time.Time
		found      bool
	)
	for k, r := range c.keys {
		switch {
		case !r.done():
		case !now.Before(r.until):
			delete(c.keys, k)
		case !found || r.until.Before(firstUntil):
			first, firstUntil, found = k, r.until, true
		}
	}
	if len(c.keys) >= c.max && found {
		delete(c.keys, first)
	}
}
