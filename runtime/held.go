package runtime

import (
	"sync"

	venue "github.com/gridvenue/venue"
)

// heldJobs bounds the unfinished jobs this node holds (waiting for a
// worker, running or waiting for their caller; a paused job only while its
// secret inputs keep it here, see letGoPaused), by count and by
// the bytes of their inputs. Each costs some 8 KB (a goroutine, its
// record, its place in the writer) and about ten times its input while it
// runs and is recorded, and a client that invokes without waiting can make
// them far faster than slow jobs end: an audit queued 300,000 one-minute
// jobs in under a minute (2.4 GB, a 49 s shutdown), and 16 echoes of 15 MB
// at once took 2.2 GB. A caller holds at most limits.caller of them
// (everyone without a token shares one caller) and the node at most
// limits.node; past either an invoke is refused at once, with ETOOMANY or
// EUNAVAILABLE. A caller holding nothing may always hold one job, however
// large its input. Jobs started by jobs are counted but never refused:
// their parent was admitted already, and refusing one midway would fail
// what is under way. A resumed job is taken like a new one (commandStored).
type heldJobs struct {
	node, caller held // the bounds
	mu           sync.Mutex
	total        held
	byCaller     map[string]held
}

// held is a count of jobs and of the bytes of their inputs.
type held struct {
	jobs  int
	bytes int64
}

func newHeldJobs(node, caller held) *heldJobs {
	caller.jobs, caller.bytes = min(caller.jobs, node.jobs), min(caller.bytes, node.bytes)
	return &heldJobs{node: node, caller: caller, byCaller: map[string]held{}}
}

// take counts a job of did whose input has size bytes, or refuses it if
// did or the node would hold too much.
func (h *heldJobs) take(did string, size int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, b := h.byCaller[did], int64(size)
	switch {
	case n.jobs >= h.caller.jobs:
		return venue.Errorf(venue.ETOOMANY, "Too many unfinished jobs: you hold %d on this venue (waiting, running, paused or waiting for your reply), the limit for one caller; "+
			"wait for some to finish, or cancel them, and try again", n.jobs)
	case n.jobs > 0 && n.bytes+b > h.caller.bytes:
		return venue.Errorf(venue.ETOOMANY, "Too much job input under way: your %d unfinished jobs on this venue hold %d bytes of input, and this one's %d would pass the limit of %d bytes for one caller; "+
			"wait for some to finish, or cancel them, and try again", n.jobs, n.bytes, b, h.caller.bytes)
	case h.total.jobs >= h.node.jobs || h.total.jobs > 0 && h.total.bytes+b > h.node.bytes:
		return venue.Errorf(venue.EUNAVAILABLE, "The venue holds its limit of unfinished jobs (%d jobs, %d bytes of input); try again when some have finished",
			h.node.jobs, h.node.bytes)
	}
	h.addLocked(did, b)
	return nil
}

// add counts a job of did that was admitted already: started by a job.
func (h *heldJobs) add(did string, size int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.addLocked(did, int64(size))
}

func (h *heldJobs) addLocked(did string, size int64) {
	n := h.byCaller[did]
	h.byCaller[did] = held{n.jobs + 1, n.bytes + size}
	h.total.jobs++
	h.total.bytes += size
}

// give uncounts a job of did whose input had size bytes: it ended, or
// this node no longer holds it.
func (h *heldJobs) give(did string, size int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := h.byCaller[did]; n.jobs > 1 {
		h.byCaller[did] = held{n.jobs - 1, n.bytes - int64(size)}
	} else {
		delete(h.byCaller, did)
	}
	h.total.jobs--
	h.total.bytes -= int64(size)
}
