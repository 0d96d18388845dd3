package runtime

import (
	"container/list"
	"hash/maphash"
	"sync"
)

// The entry indexes of large values are kept, so that paging through a map
// of 250,000 entries sorts its keys once, not on every page. An index is
// found by the hash of the value's text, which each read loads anyway:
// any write that changes the value changes its text, so a stale index is
// never found, and one value read at several paths (or by several
// callers, or on a node that did not write it) shares one index. Hashing
// costs 0.4 ms for 4 MB, against 20 ms only to check that the text is JSON
// and 50-150 ms to index it.
//
// The hash is 64 bits, keyed by a seed each process draws (hash/maphash),
// with the text's length beside it: no text can be made to collide without
// the seed, and the chance that a read finds the index of another text of
// its length is at most the number kept (thousands) in 2^64. Even then an
// index only points into the text read, never into another's.

const (
	// minIndexedText is the smallest text whose index is kept: a smaller
	// one is indexed faster than the cache's bookkeeping pays for.
	minIndexedText = 32 << 10
	// indexCacheBytes bounds the memory the kept indexes take: 4 bytes an
	// entry, so some 8 million entries, a few large values.
	indexCacheBytes = 32 << 20
	// maxNotedLengths bounds the vector lengths kept for appends.
	maxNotedLengths = 1024
)

// indexCache keeps entry indexes by their text's hash, the least recently
// used going first past max bytes, and the lengths of the vectors appends
// made (see elements). It is safe for concurrent use.
type indexCache struct {
	seed    maphash.Seed
	max     int
	mu      sync.Mutex
	used    int
	byKey   map[indexKey]*list.Element // of *cachedIndex
	lru     list.List                  // most recently used first
	lengths map[indexKey]int           // elements of vectors appends made
	noted   [maxNotedLengths]indexKey  // the keys of lengths, the oldest replaced first
	next    int                        // where noted takes the next key
	pending map[indexKey]*indexing     // indexes being made: a read of the same text waits for it
	made    int                        // indexes made for the cache, which its tests count
}

// indexing is an index being made, ready once done is closed.
type indexing struct {
	done chan struct{}
	x    *entryIndex
	err  error
}

// indexKey names a text by its length and hash.
type indexKey struct {
	sum  uint64
	size int
}

type cachedIndex struct {
	key indexKey
	x   *entryIndex
}

func newIndexCache(max int) *indexCache {
	return &indexCache{seed: maphash.MakeSeed(), max: max, byKey: map[indexKey]*list.Element{}, lengths: map[indexKey]int{},
		pending: map[indexKey]*indexing{}}
}

// index returns the entry index of text, a map or vector (see
// indexEntries), from the cache when it is kept there. Reads of one text
// arriving while its index is being made wait for that one (some 150 ms
// and 11 MB for a map of 4 MB) rather than each making its own. A nil
// cache keeps nothing.
func (c *indexCache) index(text []byte) (*entryIndex, error) {
	if c == nil || len(text) < minIndexedText {
		return indexEntries(text)
	}
	k := c.key(text)
	c.mu.Lock()
	if x := c.kept(k); x != nil {
		c.mu.Unlock()
		return x, nil
	}
	if p, ok := c.pending[k]; ok {
		c.mu.Unlock()
		<-p.done
		return p.x, p.err
	}
	p := &indexing{done: make(chan struct{})}
	c.pending[k] = p
	c.made++
	c.mu.Unlock()
	p.x, p.err = indexEntries(text)
	if p.err == nil {
		c.put(k, p.x)
	}
	c.mu.Lock()
	delete(c.pending, k)
	c.mu.Unlock()
	close(p.done)
	return p.x, p.err
}

func (c *indexCache) key(text []byte) indexKey {
	return indexKey{sum: maphash.Bytes(c.seed, text), size: len(text)}
}

func (c *indexCache) get(k indexKey) *entryIndex {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kept(k)
}

// kept returns the index kept under k, now the most recently used, or nil;
// c.mu is held.
func (c *indexCache) kept(k indexKey) *entryIndex {
	el, ok := c.byKey[k]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cachedIndex).x
}

// put keeps x, unless it is larger than the whole cache, and drops the
// least recently used indexes past max.
func (c *indexCache) put(k indexKey, x *entryIndex) {
	cost := indexCost(x)
	if cost > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		return // another read of the same text indexed it meanwhile
	}
	c.byKey[k] = c.lru.PushFront(&cachedIndex{key: k, x: x})
	c.used += cost
	for c.used > c.max {
		last := c.lru.Back()
		old := c.lru.Remove(last).(*cachedIndex)
		delete(c.byKey, old.key)
		c.used -= indexCost(old.x)
	}
}

// indexCost is what a kept index takes: its offsets and the bookkeeping.
func indexCost(x *entryIndex) int { return 4*cap(x.at) + 128 }

// An append answers the index of the element it adds, so it counts the
// vector it grows, element by element: 11 ms for 290,000 small maps
// (4.6 MB), a third of an append to a vector of 2 MB. The vector an append
// makes is the one the next append to it finds, so an append notes the
// length of what it made, by its text's hash like an index, and the next
// one looks it up in 0.6 ms (hashing it) instead of counting. A length
// belongs to a text, so a note is right whether or not the write that made
// it was kept.

// elements returns how many elements the vector text (or nothing) has.
func (c *indexCache) elements(text []byte) int {
	if c == nil || len(text) < minIndexedText {
		return elementCount(text)
	}
	k := c.key(text)
	c.mu.Lock()
	n, ok := c.lengths[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	if x := c.get(k); x != nil {
		return x.count()
	}
	return elementCount(text)
}

// noteElements remembers that the vector text has n elements.
func (c *indexCache) noteElements(text []byte, n int) {
	if c == nil || len(text) < minIndexedText {
		return
	}
	k := c.key(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.lengths[k]; ok {
		return
	}
	delete(c.lengths, c.noted[c.next])
	c.noted[c.next], c.next = k, (c.next+1)%maxNotedLengths
	c.lengths[k] = n
}
