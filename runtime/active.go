package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	venue "github.com/gridvenue/venue"
)

// job is a job this node is running or ran moments ago. Its record in memory
// is the newest state; the store catches up through the writer. It leaves
// the active set once a terminal record is durable.
type job struct {
	id      venue.JobID
	caller  venue.Caller
	op      *venue.Operation
	input   json.RawMessage // as given, unmasked: needed to resume
	mask    *masker
	errCode string // code of the error that failed the job, for Run
	spawned bool   // started by another job (rec.Parent is set); never changes

	mu     sync.Mutex
	rec    *venue.Job
	last   *ticket // durability of rec
	run    int     // which execution is current; bumped on resume
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when rec turns terminal
	inbox  chan struct{} // a message was queued for the job
	// asks is closed when the job first waits on its caller (INPUT_REQUIRED
	// or AUTH_REQUIRED) or is paused, which ends its invoker's wait: only
	// the caller can move it on. Nil for jobs no invoke here waits for.
	asks chan struct{}
	// moved (set when the job is made, never changed) is closed when
	// another node took the job over (it was resumed
	// there): an invoke waiting here follows it in the store instead.
	moved     chan struct{}
	gone      bool        // moved is closed
	closed    bool        // done is closed
	uncounted bool        // unfinished no longer counts j
	pauseEnd  *time.Timer // fails the job if it stays paused too long (letGoPaused)
	// handed is set once the executor of an Outliver's job has recorded
	// what the job waits on in the store (Env.HandOver): from then on a
	// shutdown leaves the job open for the Outliver to Settle, here as the
	// venue stops or after the restart. Before, it fails like any job.
	handed bool
	// messaged is set once a message may have been queued for the job:
	// what it leaves untaken is dropped when it ends.
	messaged atomic.Bool
	// stored is set once the store has applied a row of the job: from then
	// on a read that finds none means another node deleted it.
	stored atomic.Bool
}

// Causes with which an execution's context is cancelled.
var (
	errCancelled = errors.New("job cancelled")
	errPaused    = errors.New("job paused")
	errShutdown  = errors.New("venue shutting down")
)

// errStopping refuses new work once the engine is stopping.
var errStopping = venue.Errorf(venue.EUNAVAILABLE, "The venue is shutting down: try again once it is back")

// activeJobs indexes the jobs this node runs.
type activeJobs struct {
	mu       sync.RWMutex
	m        map[venue.JobID]*job
	stopping bool // the engine is stopping: no job is added
}

func (a *activeJobs) init() { a.m = map[venue.JobID]*job{} }

func (a *activeJobs) get(id venue.JobID) *job {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.m[id]
}

// put adds j, unless the engine is stopping: a job added after its
// shutdown listed the jobs would be left open with nothing to run or end it.
func (a *activeJobs) put(j *job) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopping {
		return false
	}
	a.m[j.id] = j
	return true
}

// replace makes j the entry for its id in place of old (nil: no entry),
// and reports whether the entry was still old; false while stopping.
func (a *activeJobs) replace(old, j *job) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopping || a.m[j.id] != old {
		return false
	}
	a.m[j.id] = j
	return true
}

func (a *activeJobs) isStopping() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.stopping
}

// list returns the jobs held, so that each can be locked without a.mu.
func (a *activeJobs) list() []*job {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]*job, 0, len(a.m))
	for _, j := range a.m {
		out = append(out, j)
	}
	return out
}

// drop removes j if it is still the entry for its id.
func (a *activeJobs) drop(j *job) {
	a.mu.Lock()
	if a.m[j.id] == j {
		delete(a.m, j.id)
	}
	a.mu.Unlock()
}

// cancelAll stops every execution for the shutdown, and takes no job after.
func (a *activeJobs) cancelAll() {
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	for _, j := range a.list() { // each job's lock without a.mu, as everywhere else
		j.mu.Lock()
		if j.cancel != nil {
			j.cancel(errShutdown)
		}
		j.mu.Unlock()
	}
}

// snapshot returns the current record.
func (j *job) snapshot() *venue.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec
}

// transit moves j to status s, letting edit fill in the new record, and
// queues the record for writing. Call with j.mu held. Returns ECONFLICT if
// the current record is terminal.
func (e *Engine) transit(j *job, s venue.JobStatus, edit func(*venue.Job)) (*venue.Job, error) {
	return e.transitAs(j, s, edit, false)
}

// transitAs is transit with a choice of a lazy write (see writer).
func (e *Engine) transitAs(j *job, s venue.JobStatus, edit func(*venue.Job), lazy bool) (*venue.Job, error) {
	cur := j.rec
	if cur.Status.Terminal() {
		return cur, venue.Errorf(venue.ECONFLICT, "Job is in terminal state: %s", j.id)
	}
	n := cur.Next(s, e.ms())
	if edit != nil {
		edit(n)
	}
	j.mask.apply(n)
	j.rec = n
	j.last = e.writer.put(n, &j.stored, lazy)
	if s.Terminal() {
		// Watchers get the end once the store has kept it (flushed):
		// another node's write of this version may win, and an end
		// streamed is one no client takes back.
		e.ended(j)
		return n, nil
	}
	e.hub.publish(n)
	return n, nil
}

// ended marks j finished: its done channel closes, and the writer stops
// counting on a row from it. Call with j.mu held; a second call (a job
// that ended here, then lost its end to another node's write) does nothing.
func (e *Engine) ended(j *job) {
	if !j.closed {
		j.closed = true
		close(j.done)
	}
	e.uncount(j)
}

// stopRun stops j's execution, if one runs, and makes what it still
// reports count for nothing. Call with j.mu held.
func (j *job) stopRun() {
	if j.cancel != nil {
		j.cancel(errCancelled)
		j.cancel = nil
	}
	j.run++
}

// callerHolds ends the wait of an invoke waiting for j, whose next move is
// its caller's. Call with j.mu held.
func (j *job) callerHolds() {
	if j.asks == nil {
		return
	}
	select {
	case <-j.asks: // held before
	default:
		close(j.asks)
	}
}

// uncount stops the writer counting on a row from j: it ended, or it is no
// longer held here. Call with j.mu held.
func (e *Engine) uncount(j *job) {
	if !j.uncounted {
		j.uncounted = true
		e.unfinished.Add(-1)
		e.held.give(j.caller.DID, len(j.input))
	}
}

// flushed runs after each group commit. Terminal jobs whose record is now
// durable leave the active set; a row that was not applied means another
// node changed the job first, so this node adopts the stored record. When
// the commit failed, it says which rows must be written again: those of
// jobs held here whose record is stored already, so whose id is out. A job
// never stored is its invoker's to give up (it was told the store failed);
// its next state's row, if it goes on, carries this one in its prev chain.
func (e *Engine) flushed(rows []JobRow, applied []bool, err error) (retry []bool) {
	e.noteWrite(len(rows), err)
	if err != nil {
		retry = make([]bool, len(rows))
	}
	for i, r := range rows {
		j := e.jobs.get(r.ID)
		if j == nil {
			continue
		}
		if err == nil && applied[i] {
			j.stored.Store(true)
		}
		switch {
		case err != nil:
			retry[i] = j.stored.Load()
			if r.Status.Terminal() {
				e.hub.publish(j.snapshot()) // what this node knows: its watchers must not wait on
			}
		case !applied[i]:
			e.lose(j, r.Version)
		case r.Status == venue.StatusPaused:
			e.letGoPaused(j, r.Version)
		case r.Status.Terminal():
			rec := j.snapshot()
			e.finished.put(rec, len(r.Record))
			e.jobs.drop(j)
			if j.messaged.Load() {
				e.dropMessages(r.ID)
			}
			e.hub.publish(rec)
		}
	}
	return retry
}

// noteWrite logs a group commit that failed, and the first to succeed
// after: while the store is away every commit fails, some a millisecond, and
// a line for each (an audit's outage of 13 s wrote 55,000) would bury the
// one that matters.
func (e *Engine) noteWrite(rows int, err error) {
	if err == nil {
		if n := e.writeFailures.Swap(0); n > 0 {
			e.log.Info("job records are written again", "failedCommits", n)
		}
		return
	}
	n := e.writeFailures.Add(1)
	now := time.Now().UnixNano()
	if last := e.writeFailLogged.Load(); n == 1 || now-last >= int64(10*time.Second) && e.writeFailLogged.CompareAndSwap(last, now) {
		if n == 1 {
			e.writeFailLogged.Store(now)
		}
		e.log.Error("write job records: the store failed; records of jobs already stored are written again until it takes them",
			"rows", rows, "failedCommits", n, "err", err)
	}
}

// letGoPaused lets a paused job leave this node once its PAUSED record
// (version) is durable, if it can resume from that record: it holds no
// execution, and held here it would take one of its caller's and the
// node's job slots for as long as nobody resumed it, so a few identities
// pausing jobs could fill the node for good. A command finds it in the
// store from then on, and a resume runs it from its record (commandStored),
// as on another node or after a restart. A job that cannot (its secret
// inputs are in this node's memory only) stays, counted, for at most the
// job deadline, as long as its execution could have held its slot.
func (e *Engine) letGoPaused(j *job, version int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.rec.Version != version || j.rec.Status != venue.StatusPaused || j.op == nil {
		return // resumed or ended since
	}
	if unportable(j.rec, j.op) != "" {
		if j.pauseEnd != nil {
			j.pauseEnd.Stop() // a timer per job, however often it is paused
		}
		j.pauseEnd = time.AfterFunc(e.cfg.JobTimeout, func() { e.endPause(j, version) })
		return
	}
	e.jobs.drop(j)
	e.uncount(j)
	if j.moved != nil && !j.gone {
		close(j.moved) // an invoke still waiting follows it in the store
		j.gone = true
	}
}

// endPause fails j if it is still paused as version left it. A job still
// held here is settled by the shutdown under its lock, so a record made
// here reaches the writer before the writer closes.
func (e *Engine) endPause(j *job, version int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if e.life.Err() != nil || j.rec.Version != version || j.rec.Status != venue.StatusPaused {
		return
	}
	j.run++
	e.transit(j, venue.StatusFailed, func(n *venue.Job) {
		n.Error = fmt.Sprintf("The job stayed paused longer than the job deadline (%s): its secret inputs are kept only in memory, and only that long; invoke it again", e.cfg.JobTimeout)
	})
}

// dropMessages deletes, beside the writer, what is still queued for a job
// whose end is now stored: the store takes no message for an ended job, so
// nothing arrives after.
func (e *Engine) dropMessages(id venue.JobID) {
	e.drops.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := e.store.DropJobMessages(ctx, id); err != nil {
			e.log.Warn("drop the messages of an ended job", "job", id, "err", err)
		}
	})
}

func rowOf(j *venue.Job) JobRow {
	return JobRow{ID: j.ID, Owner: j.Caller, Status: j.Status, Version: j.Version,
		Created: j.Created, Updated: j.Updated, Record: j.AppendJSON(make([]byte, 0, j.SizeHint()))}
}

func decodeRow(r JobRow) (*venue.Job, error) {
	var j venue.Job
	if err := json.Unmarshal(r.Record, &j); err != nil {
		return nil, err
	}
	j.Version = r.Version
	return &j, nil
}
