package auth

import (
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
)

// Bounds of the verified-token cache.
const (
	maxCachedTokens     = 10_000
	maxCachedTokenBytes = 4 << 10
)

// tokenCache remembers bearer tokens that verified, until they expire.
// Checking an EdDSA signature costs about 90 µs here, more than the rest of
// an invoke; a client reusing its token (curl, a signed-in browser) pays it
// once. Only the verdict of a full check is cached: a token is a cache key
// only after it passed, and expiry is checked again on every hit, as is the
// revocation of a UCAN. One-time tokens (with jti) are never cached, so
// replay detection sees each use.
type tokenCache struct {
	mu      sync.RWMutex
	entries map[string]cachedToken
}

type cachedToken struct {
	caller  venue.Caller
	expires time.Time
	chain   []string // a UCAN's chain, looked up for revocations on every hit
}

func newTokenCache() *tokenCache { return &tokenCache{entries: map[string]cachedToken{}} }

// get returns the entry of a token verified before, if it has not expired.
func (c *tokenCache) get(tok string, now time.Time) (cachedToken, bool) {
	c.mu.RLock()
	e, ok := c.entries[tok]
	c.mu.RUnlock()
	if !ok || !now.Before(e.expires) {
		return cachedToken{}, false
	}
	return e, true
}

// drop forgets a token.
func (c *tokenCache) drop(tok string) {
	c.mu.Lock()
	delete(c.entries, tok)
	c.mu.Unlock()
}

// put remembers a verified token. When full it drops expired entries, and
// if none have expired, everything: the cache is only a shortcut.
func (c *tokenCache) put(tok string, v verdict, now time.Time) {
	if len(tok) > maxCachedTokenBytes || v.expires.IsZero() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedTokens {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxCachedTokens {
			clear(c.entries)
		}
	}
	c.entries[tok] = cachedToken{caller: v.caller, expires: v.expires, chain: v.chain}
}
