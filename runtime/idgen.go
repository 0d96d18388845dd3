package runtime

import (
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
)

// idGen makes job, message and session ids: 6 bytes of milliseconds, a
// 2-byte counter within the millisecond and 8 random bytes, so ids sort by
// creation time and never repeat within a process. The random bytes come
// from the runtime's ChaCha8 generator: unpredictable and cheap, where
// crypto/rand would cost a system call per id. Ids are names, not secrets.
type idGen struct {
	mu      sync.Mutex
	now     func() time.Time
	lastMS  int64
	counter uint16
}

func (g *idGen) next() venue.JobID {
	var id venue.JobID
	g.mu.Lock()
	ms := g.now().UnixMilli()
	if ms <= g.lastMS {
		// Same millisecond, or the clock stepped back: keep ids ordered.
		g.counter++
		if g.counter == 0 {
			g.lastMS++
		}
		ms = g.lastMS
	} else {
		g.lastMS, g.counter = ms, 0
	}
	c := g.counter
	g.mu.Unlock()
	id = venue.JobIDAt(ms, rand.Uint64())
	binary.BigEndian.PutUint16(id[6:8], c)
	return id
}
