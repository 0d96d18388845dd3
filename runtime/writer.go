package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	venue "github.com/gridvenue/venue"
)

// writer group-commits job records. Transitions hand it rows and carry on;
// flushers write everything waiting in one store transaction each, so a
// thousand concurrent jobs cost a few transactions, not a thousand. Rows of
// the same job that pile up before a flush are coalesced into the latest:
// each record embeds its predecessors in its prev chain, so nothing is lost.
// Whoever must not go on before a record is durable (an invoke about to hand
// out a job id) waits on the ticket.
//
// A row may be put lazily: it waits up to lazyDelay for a later state of
// its job to replace it. A quick job invoked with wait is then written once,
// finished, instead of three times; a slow one still shows up in the store
// within lazyDelay. Nobody has been handed the id of a lazily written job:
// its invoker waits for the final record, which is written eagerly.
//
// A group commit that fails (the store went away) fails its tickets, and
// onFlush says which of its rows must still reach the store: those of jobs
// whose record is stored already, whose ids are out. They are written
// again, after a delay that doubles while the store keeps failing (to
// maxRetryDelay), unless a later state of the job came meanwhile. Without
// it an outage left such records STARTED in the store for good, while the
// node answered COMPLETE from memory. As it closes, the writer tries each
// such row closeTries times more, then reports what it could not store.
type writer struct {
	store       JobStore
	unfinished  func() int // jobs not yet finished, each with a row still to come
	onFlush     func(rows []JobRow, applied []bool, err error) (retry []bool)
	mu          sync.Mutex
	log         *slog.Logger
	retryDelay  time.Duration // before rows of a failed commit are written again; 0 while commits succeed
	gaveUp      int           // rows given up on at close
	lastErr     error         // of the last failed commit
	pending     map[venue.JobID]*pendingRow
	order       []venue.JobID // arrival order of pending ids
	inflight    map[venue.JobID]bool
	armed       bool // a timer will kick the flushers when lazy rows fall due
	kick        chan struct{}
	done        chan struct{}
	wg          sync.WaitGroup
	closed      bool
	gatherWaits atomic.Int64 // waits for more rows (gather), for tests
}

// lazyDelay is how long a lazily put row may wait for its successor.
const lazyDelay = 25 * time.Millisecond

// gatherDelay is how long a flusher waits for more rows when more jobs are
// executing than it has rows in hand, as Postgres's commit_delay does: a
// transaction costs far more than a row, so under load a short wait buys a
// larger batch for the same commit, at a fraction of a millisecond of latency.
const gatherDelay = 300 * time.Microsecond

// gatherTarget is the batch size past which a flusher no longer waits.
const gatherTarget = 64

type pendingRow struct {
	job     *venue.Job   // encoded when flushed, so a replaced state costs nothing
	stored  *atomic.Bool // the job's mark that the store took a row of it (job.stored), read at the flush
	ticket  *ticket
	due     time.Time // zero: write at once
	tries   int       // failed writes of this row, when it is written again
	closing int       // of them, since the writer began closing
}

// Bounds of writing rows again after a failed commit.
const (
	firstRetryDelay = 100 * time.Millisecond
	maxRetryDelay   = 5 * time.Second
	closeTries      = 3                      // more tries of each row once closing
	closeRetryDelay = 500 * time.Millisecond // between them
	maxTries        = 8                      // of a row whose commit failed with the store reachable
)

// ticket is closed once the row it was issued for (or a later row of the
// same job coalesced into it) is written or has failed to be.
type ticket struct {
	done chan struct{}
	err  error
	// What was written, once done without error: the record and its JSON,
	// which a door answering with that record sends as is.
	job  *venue.Job
	json []byte
	// lost is set when the store kept another node's record of the job
	// instead (first writer wins): what was handed in was not written.
	lost bool
}

// written returns the JSON written for rec, or nil if the ticket's write
// was of another record (a later one coalesced into it) or failed.
// Call once done is closed.
func (t *ticket) written(rec *venue.Job) []byte {
	if t.err != nil || t.lost || t.job != rec {
		return nil
	}
	return t.json
}

func (t *ticket) wait(ctx context.Context) error {
	select {
	case <-t.done:
		return t.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// maxBatch bounds one transaction so a burst cannot build a huge statement.
const maxBatch = 512

func newWriter(st JobStore, flushers int, unfinished func() int, onFlush func([]JobRow, []bool, error) []bool, log *slog.Logger) *writer {
	w := &writer{store: st, unfinished: unfinished, onFlush: onFlush, log: log, pending: map[venue.JobID]*pendingRow{},
		inflight: map[venue.JobID]bool{}, kick: make(chan struct{}, 1), done: make(chan struct{})}
	for range flushers {
		w.wg.Add(1)
		go w.loop()
	}
	return w
}

// put queues row and returns the ticket that says when it is durable. A
// lazy row may wait lazyDelay for a successor; an eager one, or an eager
// successor of a lazy one, is written at the next flush. stored, if not
// nil, says at the flush whether the store holds a row of the job already:
// then the row only replaces it (JobRow.Stored).
func (w *writer) put(j *venue.Job, stored *atomic.Bool, lazy bool) *ticket {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		t := &ticket{done: make(chan struct{}), err: venue.Errorf(venue.EUNAVAILABLE, "The venue is shutting down")}
		close(t.done)
		return t
	}
	p, ok := w.pending[j.ID]
	if ok {
		p.job = j
	} else {
		p = &pendingRow{job: j, stored: stored, ticket: &ticket{done: make(chan struct{})}}
		w.pending[j.ID] = p
		w.order = append(w.order, j.ID)
		if lazy {
			p.due = time.Now().Add(lazyDelay)
			w.armLocked(lazyDelay)
		}
	}
	if !lazy {
		p.due = time.Time{}
	}
	w.mu.Unlock()
	if !lazy {
		w.wake()
	}
	return p.ticket
}

func (w *writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// armLocked makes sure a timer wakes the flushers after d. Call with w.mu held.
func (w *writer) armLocked(d time.Duration) {
	if w.armed {
		return
	}
	w.armed = true
	time.AfterFunc(d, func() {
		w.mu.Lock()
		w.armed = false
		w.mu.Unlock()
		w.wake()
	})
}

func (w *writer) loop() {
	defer w.wg.Done()
	var g gathering
	for {
		batch := w.take(maxBatch)
		if len(batch) == 0 {
			select {
			case <-w.kick:
				continue
			case <-w.done:
				if batch = w.take(maxBatch); len(batch) == 0 {
					if d := w.untilRetry(); d > 0 {
						time.Sleep(d) // rows of a failed commit, due later
						continue
					}
					return
				}
			}
		}
		w.flush(w.gather(batch, &g))
	}
}

// gathering is what one flusher remembers of its waits for more rows.
type gathering struct {
	skip    int // flushes left that do not wait, after a wait that found no row
	backoff int // how many the next such wait makes it skip
}

// Bounds of gathering.backoff.
const (
	minGatherBackoff = 8
	maxGatherBackoff = 1024
)

// gather waits gatherDelay once and tops batch up, if more jobs are
// unfinished than batch holds rows: under load, rows arrive a few at a
// time, and one commit for many of them costs far less than one each. A
// single job alone never waits. (Waking on every new row instead was
// slower: the wake-ups cost more than the wait.)
//
// Unfinished jobs that run long (a job waiting for its caller's reply, a
// paused one, an uploaded operation computing, an agent) bring no row
// soon, and a wait of 300 µs on a processor with nothing else to do is
// one of at least a millisecond (the runtime sleeps in epoll, whose
// timeout is in milliseconds): beside two such jobs, every echo took
// 1.3 ms instead of 0.15. So a wait that finds no row makes the flusher
// skip its next waits, 8 flushes at first and twice as many after each
// such wait up to 1,024, unless a batch holds two rows or more already,
// which only rows arriving together make; a wait that finds rows ends
// the skipping.
func (w *writer) gather(batch []*pendingRow, g *gathering) []*pendingRow {
	if len(batch) >= gatherTarget || w.unfinished() <= len(batch) {
		return batch
	}
	if g.skip > 0 && len(batch) == 1 {
		g.skip--
		return batch
	}
	w.gatherWaits.Add(1)
	select {
	case <-time.After(gatherDelay):
	case <-w.done:
	}
	more := w.take(maxBatch - len(batch))
	if len(more) > 0 {
		g.skip, g.backoff = 0, 0
		return append(batch, more...)
	}
	g.backoff = min(max(2*g.backoff, minGatherBackoff), maxGatherBackoff)
	g.skip = g.backoff
	return batch
}

// take removes up to maxBatch rows that are due and whose job has no write
// in flight: a job's rows are written one transaction after another, never
// two at once, so a later state can never be overtaken by an earlier one.
// Once the writer is closing, lazy rows are due at once.
func (w *writer) take(max int) []*pendingRow {
	w.mu.Lock()
	defer w.mu.Unlock()
	var batch []*pendingRow
	var next time.Time // the earliest lazy row left waiting
	now := time.Now()
	rest := w.order[:0]
	for _, id := range w.order {
		p := w.pending[id]
		waiting := (!w.closed || p.tries > 0) && p.due.After(now)
		if len(batch) == max || w.inflight[id] || waiting {
			if waiting && (next.IsZero() || p.due.Before(next)) {
				next = p.due
			}
			rest = append(rest, id)
			continue
		}
		batch = append(batch, w.pending[id])
		delete(w.pending, id)
		w.inflight[id] = true
	}
	w.order = rest
	if !next.IsZero() {
		w.armLocked(next.Sub(now))
	}
	return batch
}

func (w *writer) flush(batch []*pendingRow) {
	rows := make([]JobRow, len(batch))
	for i, p := range batch {
		rows[i] = rowOf(p.job)
		rows[i].Stored = p.stored != nil && p.stored.Load()
	}
	applied, err := w.store.WriteJobs(context.Background(), rows)
	// The batch's ids stay in flight until its failed rows are queued
	// again: another flusher must not take a newer state of one of them
	// meanwhile, which settle would then overtake with the older row.
	retry := w.onFlush(rows, applied, err)
	if w.settle(batch, retry, err) {
		w.wake()
	}
	for i, p := range batch {
		p.ticket.err, p.ticket.job, p.ticket.json = err, p.job, rows[i].Record
		p.ticket.lost = err == nil && !applied[i]
		close(p.ticket.done)
	}
}

// settle ends the batch's flight, queues again the rows of a failed commit
// that onFlush said must still be written, and sets the delay before they
// are. It reports whether other rows wait.
func (w *writer) settle(batch []*pendingRow, retry []bool, err error) (more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range batch {
		delete(w.inflight, p.job.ID)
	}
	more = len(w.order) > 0
	if err == nil {
		w.retryDelay = 0
		return more
	}
	w.lastErr = err
	w.retryDelay = min(max(2*w.retryDelay, firstRetryDelay), maxRetryDelay)
	delay := w.retryDelay
	if w.closed {
		delay = min(delay, closeRetryDelay) // a close waits for these
	}
	// A store away fails every commit until it is back; any other failure
	// may be the batch's own (a row the server refuses), and retrying it for
	// ever would fail every row batched with it.
	away := venue.ErrorCode(err) == venue.EUNAVAILABLE
	for i, p := range batch {
		if i >= len(retry) || !retry[i] {
			continue
		}
		if _, newer := w.pending[p.job.ID]; newer {
			continue // a later state came: it holds this one in its prev chain
		}
		closing := p.closing
		if w.closed {
			closing++
		}
		if closing > closeTries || !away && p.tries >= maxTries {
			w.gaveUp++
			w.log.Error("gave up writing a job record: the store keeps its earlier state", "job", p.job.ID, "status", p.job.Status, "tries", p.tries+1, "err", err)
			continue
		}
		w.pending[p.job.ID] = &pendingRow{job: p.job, stored: p.stored, ticket: &ticket{done: make(chan struct{})}, due: time.Now().Add(delay), tries: p.tries + 1, closing: closing}
		w.order = append(w.order, p.job.ID)
	}
	w.armLocked(delay)
	return more
}

// untilRetry is how long the closing writer waits before rows of a failed
// commit fall due again; 0 if none wait.
func (w *writer) untilRetry() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d time.Duration
	for _, p := range w.pending {
		if wait := time.Until(p.due); d == 0 || wait < d {
			d = wait
		}
	}
	if len(w.pending) > 0 {
		return max(d, time.Millisecond)
	}
	return 0
}

// forget drops the row queued for job id, if any, failing its ticket with
// err: the job is gone from the store, and writing it would bring it back.
func (w *writer) forget(id venue.JobID, err error) {
	w.mu.Lock()
	p, ok := w.pending[id]
	if ok {
		delete(w.pending, id)
		w.order = slices.DeleteFunc(w.order, func(x venue.JobID) bool { return x == id })
	}
	w.mu.Unlock()
	if ok {
		p.ticket.err = err
		close(p.ticket.done)
	}
}

// close writes out everything queued and stops the flushers.
func (w *writer) close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	w.wake()
	w.wg.Wait()
	if w.gaveUp > 0 {
		return fmt.Errorf("%d job records could not be stored (given up while running or at the stop); the store keeps their earlier state: %w", w.gaveUp, w.lastErr)
	}
	return nil
}
