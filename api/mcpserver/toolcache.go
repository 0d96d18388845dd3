package mcpserver

import (
	"sync"
	"time"
)

// toolCache keeps each caller's tool set (the catalog's plus its bridged
// tools) for a short while, so that tools/list and calls of bridged tools
// do not read and parse every bridge's tools each time. A change made
// through this node (ToolsChanged) empties it at once; one made through
// another node sharing the store shows after at most the ttl.
type toolCache struct {
	ttl   time.Duration
	mu    sync.Mutex
	gen   uint64 // counts resets, so that a set computed before one is not kept
	byDID map[string]cachedTools
}

type cachedTools struct {
	ts *toolSet
	at time.Time
}

// maxCachedCallers bounds the cache; past it, it starts afresh.
const maxCachedCallers = 10000

func newToolCache(ttl time.Duration) *toolCache {
	return &toolCache{ttl: ttl, byDID: map[string]cachedTools{}}
}

// get returns the caller's cached tool set, nil if there is none, and the
// generation to put a new one under.
func (c *toolCache) get(did string) (*toolSet, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byDID[did]
	if !ok || time.Since(e.at) >= c.ttl {
		return nil, c.gen
	}
	return e.ts, c.gen
}

// put keeps ts, computed from a read started at since in generation gen.
func (c *toolCache) put(did string, ts *toolSet, since time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.byDID) >= maxCachedCallers {
		clear(c.byDID)
	}
	c.byDID[did] = cachedTools{ts: ts, at: since}
}

// reset forgets every caller's tools.
func (c *toolCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.byDID)
}
