package auth

import (
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
)

// maxReplayEntries bounds the replay cache; past it, expired entries are
// swept, and if none have expired new one-time tokens are refused rather
// than forgotten.
const maxReplayEntries = 100_000

// replayCache remembers the ids (jti) of one-time self-issued tokens until
// they expire, so a token that carries an id is accepted once. Tokens
// without an id are ordinary bearer tokens, valid until they expire. The
// cache is per process: on a venue of several nodes a captured one-time
// token could be replayed once per node.
type replayCache struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func newReplayCache() *replayCache { return &replayCache{seen: map[string]time.Time{}} }

// use records a token id, refusing one already seen.
func (c *replayCache) use(id, issuer string, exp time.Time) error {
	if id == "" {
		return nil
	}
	key := issuer + "\x00" + id
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if until, ok := c.seen[key]; ok && now.Before(until.Add(leeway)) {
		return venue.Errorf(venue.EUNAUTHORIZED, "Invalid token: replayed: its jti was already used; mint a new token for each request, or leave out jti")
	}
	if len(c.seen) >= maxReplayEntries {
		for k, until := range c.seen {
			if now.After(until.Add(leeway)) {
				delete(c.seen, k)
			}
		}
		if len(c.seen) >= maxReplayEntries {
			return venue.Errorf(venue.EUNAVAILABLE, "Too many one-time tokens in flight: retry shortly")
		}
	}
	c.seen[key] = exp
	return nil
}
