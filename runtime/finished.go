package runtime

import (
	"sync"

	venue "github.com/gridvenue/venue"
)

// finished remembers the records of jobs that ended recently on this node,
// for the reads that follow a job's end: a client polling it, an SDK's
// wait, grid:job-status, an event stream opened late. A terminal record
// never changes (the store refuses every later write). On a single-node
// store only this engine deletes one, and it forgets the record here when
// it does, so the records are served from memory; with several nodes on one
// store another node may delete a job, and nothing is kept.
//
// Records enter only as their terminal row is written (Engine.flushed),
// never from a read of the store, so a read racing a delete cannot bring a
// deleted record back.
type finished struct {
	mu      sync.Mutex
	maxSize int // bytes of records kept; 0 keeps none
	size    int
	recs    map[venue.JobID]finishedRec
	order   []venue.JobID // oldest first; ids deleted meanwhile are skipped
}

type finishedRec struct {
	rec  *venue.Job
	size int
	read bool // read since it last came up for eviction: it gets another round
}

// Bounds of the finished cache: the bytes of records kept, and the largest
// record kept (a big output is read rarely and would crowd out the rest).
const (
	finishedMaxSize   = 8 << 20
	finishedMaxRecord = 64 << 10
)

func (f *finished) init(maxSize int) {
	f.maxSize, f.recs = maxSize, map[venue.JobID]finishedRec{}
}

// put keeps rec, a terminal record whose stored form is size bytes,
// dropping the oldest records beyond the bound, except that one read since
// it last came up goes to the back instead (CLOCK): a job polled or read
// over and over stays however many others end meanwhile.
func (f *finished) put(rec *venue.Job, size int) {
	if f.maxSize == 0 || size > finishedMaxRecord {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.recs[rec.ID]; ok {
		return
	}
	f.recs[rec.ID] = finishedRec{rec: rec, size: size}
	f.order = append(f.order, rec.ID)
	f.size += size
	for f.size > f.maxSize && len(f.order) > 0 {
		id := f.order[0]
		f.order = f.order[1:]
		if r, ok := f.recs[id]; ok && r.read {
			r.read = false
			f.recs[id] = r
			f.order = append(f.order, id)
			continue
		}
		f.drop(id)
	}
	if len(f.order) > 2*len(f.recs)+64 { // ids of deleted records pile up: compact
		f.order = compactIDs(f.order, f.recs)
	}
}

// get returns the record of job id if it is kept.
func (f *finished) get(id venue.JobID) *venue.Job {
	if f.maxSize == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.recs[id]
	if ok && !r.read {
		r.read = true
		f.recs[id] = r
	}
	return r.rec
}

// forget drops the record of job id, which has been deleted.
func (f *finished) forget(id venue.JobID) {
	if f.maxSize == 0 {
		return
	}
	f.mu.Lock()
	f.drop(id)
	f.mu.Unlock()
}

func (f *finished) drop(id venue.JobID) {
	if r, ok := f.recs[id]; ok {
		f.size -= r.size
		delete(f.recs, id)
	}
}

// compactIDs keeps the ids of order still in recs, in order.
func compactIDs(order []venue.JobID, recs map[venue.JobID]finishedRec) []venue.JobID {
	kept := order[:0]
	for _, id := range order {
		if _, ok := recs[id]; ok {
			kept = append(kept, id)
		}
	}
	return kept
}
