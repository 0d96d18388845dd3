package runtime

import (
	"sync"
	"sync/atomic"
)

// forgetful is a map that remembers up to max keys and, past that, forgets
// them all and starts again. It holds what the engine can always find
// again at some cost (a user already recorded, an owner's secrets key):
// anyone can make new did:key identities, and a map that kept every one
// would grow for as long as the process lives.
type forgetful[V any] struct {
	m   sync.Map
	n   atomic.Int64
	max int64
}

func (f *forgetful[V]) load(k string) (V, bool) {
	v, ok := f.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (f *forgetful[V]) store(k string, v V) {
	if _, loaded := f.m.Swap(k, v); loaded {
		return
	}
	if f.n.Add(1) > f.max {
		f.m.Clear()
		f.n.Store(0)
	}
}
