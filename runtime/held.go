package runtime

import (
	"sync"

	venue "github.com/gridvenue/venue"
)

// heldJobs bounds the unfinished jobs this node holds: waiting for a
// worker, running, paused or waiting for their caller. Each costs some
// 8 KB (a goroutine, its record, its place in the writer), and a client
// that invokes without waiting can make them far faster than slow jobs
// end: an audit queued 300,000 one-minute jobs in under a minute, 2.4 GB
// and a 49 s shutdown. A caller holds at most maxCaller of them (everyone
// without a token shares one caller) and the node at most max; past either
// an invoke is refused at once, with ETOOMANY or EUNAVAILABLE. Jobs started
// by jobs, and jobs this node takes over from another, are counted but
// never refused: their parent or their first node admitted them already,
// and refusing one midway would fail what is under way.
type heldJobs struct {
	max, maxCaller int
	mu             sync.Mutex
	total          int
	byCaller       map[string]int
}

func newHeldJobs(max, maxCaller int) *heldJobs {
	return &heldJobs{max: max, maxCaller: min(maxCaller, max), byCaller: map[string]int{}}
}

// take counts a job of did, or refuses it if did or the node holds too
// many already.
func (h *heldJobs) take(did string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch n := h.byCaller[did]; {
	case n >= h.maxCaller:
		return venue.Errorf(venue.ETOOMANY, "Too many unfinished jobs: you hold %d on this venue (waiting, running, paused or waiting for your reply), the limit for one caller; "+
			"wait for some to finish, or cancel them, and try again", n)
	case h.total >= h.max:
		return venue.Errorf(venue.EUNAVAILABLE, "The venue holds its limit of %d unfinished jobs; try again when some have finished", h.max)
	}
	h.addLocked(did)
	return nil
}

// add counts a job of did that was admitted already: started by a job, or
// taken over from another node.
func (h *heldJobs) add(did string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.addLocked(did)
}

func (h *heldJobs) addLocked(did string) {
	h.byCaller[did]++
	h.total++
}

// give uncounts a job of did: it ended, or this node no longer holds it.
func (h *heldJobs) give(did string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := h.byCaller[did] - 1; n > 0 {
		h.byCaller[did] = n
	} else {
		delete(h.byCaller, did)
	}
	h.total--
}
