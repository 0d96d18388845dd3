package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// onNote handles what another node did to a job: a queued message wakes the
// job if it runs here; a changed record is adopted by the local execution
// and forwarded to local watchers.
func (e *Engine) onNote(n JobNote) {
	if n.Kind == NoteResync {
		e.resync()
		return
	}
	j := e.jobs.get(n.ID)
	switch {
	case n.Kind == "message" && j != nil:
		j.messaged.Store(true)
		j.wake()
	case n.Kind != "job":
	case j != nil:
		e.adopt(j)
	case e.hub.watched(n.ID):
		row, err := e.store.Job(context.Background(), n.ID)
		if err != nil {
			e.log.Warn("reload job for watchers", "job", n.ID, "err", err)
			return
		}
		if rec, err := decodeRow(row); err == nil {
			e.hub.publish(rec)
		}
	}
}

// NoteResync is the note a Notifier gives after its connection came back:
// whatever other nodes did meanwhile was not heard.
const NoteResync = "resync"

// resync catches up with what other nodes did while this one could not
// hear them: every job held here takes its stored record (a cancel, a
// pause) and looks for messages queued for it (a reply), and every job
// watched here is reloaded for its watchers.
func (e *Engine) resync() {
	for _, j := range e.jobs.list() {
		e.adopt(j)
		j.wake()
	}
	for _, id := range e.hub.ids() {
		if e.jobs.get(id) == nil {
			e.onNote(JobNote{Kind: "job", ID: id})
		}
	}
}

// adopt makes the stored record of j the truth on this node: another node
// changed the job. The local execution stops if the job ended, paused, or
// was resumed elsewhere (where it now runs).
func (e *Engine) adopt(j *job) {
	rec, err := e.stored(j.id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		// Not stored yet (its first row waits in the writer, as a resync
		// reads every job held here), or deleted: only a job whose end is
		// stored is, so another node ended it (a cancel) and its record
		// went before this node read it. Going on would run a cancelled
		// job to its end, and its next write would bring the record back.
		if j.stored.Load() {
			e.deleted(j)
		}
		return
	}
	if rec != nil {
		e.adoptRecord(j, rec, false)
	}
}

// deleted lets go of j, whose record another node deleted: its execution
// stops and nothing of it is written any more.
func (e *Engine) deleted(j *job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stopRun()
	e.jobs.drop(j)
	e.ended(j)
	// A row of it still queued here is dropped; one already on its way is
	// marked Stored, so the store does not insert it again (JobRow.Stored).
	e.writer.forget(j.id, venue.Errorf(venue.ENOTFOUND, "Job not found: %s (deleted on another node)", j.id))
}

// lose is adopt for a job whose own write the store did not apply: another
// node wrote that version first (a pause there as the job ended here, a
// resume on both), so the job is theirs now, whatever their record says.
// A state made here after the lost one (a resume already on its way to
// the store) is newer than what won, and its own write decides.
func (e *Engine) lose(j *job, version int64) {
	j.mu.Lock()
	newer := j.rec.Version > version
	j.mu.Unlock()
	if newer {
		return
	}
	if rec, _ := e.stored(j.id); rec != nil {
		e.adoptRecord(j, rec, true)
	}
}

// stored reads and decodes a job's stored record; a failure other than
// ENOTFOUND is logged.
func (e *Engine) stored(id venue.JobID) (*venue.Job, error) {
	row, err := e.store.Job(context.Background(), id)
	if err != nil {
		if venue.ErrorCode(err) != venue.ENOTFOUND { // not stored yet, or deleted: adopt judges
			e.log.Warn("reload job", "job", id, "err", err)
		}
		return nil, err
	}
	rec, err := decodeRow(row)
	if err != nil {
		e.log.Error("decode stored job", "job", id, "err", err)
		return nil, err
	}
	return rec, nil
}

// adoptRecord takes rec as j's record. The job stays held here only while
// its execution can go on here: once it ended (here or there), was resumed
// elsewhere, or its own end lost to another node's write, it is let go,
// and an invoke waiting here follows it in the store.
func (e *Engine) adoptRecord(j *job, rec *venue.Job, lost bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	old := j.rec
	if !lost && (rec.Version < old.Version || (rec.Version == old.Version && rec.Status == old.Status)) {
		return
	}
	j.rec, j.last = rec, doneTicket()
	if waitsOnCaller(rec.Status) {
		j.callerHolds() // paused, or asking, by a command on another node
	}
	if lost || rec.Status != venue.StatusPending && rec.Status != venue.StatusInputRequired {
		j.stopRun()
	}
	if lost || rec.Status.Terminal() || old.Status.Terminal() || rec.Status == venue.StatusStarted && old.Status == venue.StatusPaused {
		e.jobs.drop(j)
		if rec.Status.Terminal() {
			e.ended(j)
		} else {
			e.uncount(j)
			if j.moved != nil && !j.gone {
				close(j.moved) // it goes on elsewhere, or waits there
				j.gone = true
			}
		}
	}
	e.hub.publish(rec)
}

// recover fails the jobs a previous run of a single-node venue left
// unfinished: nothing runs them any more, and a client polling one must
// learn that rather than wait forever. An Outliver's job that started stays
// open.
func (e *Engine) recover(ctx context.Context) error {
	if !e.cfg.SingleNode {
		return nil
	}
	rows, err := e.store.UnfinishedJobs(ctx)
	if err != nil {
		return err
	}
	out := make([]JobRow, 0, len(rows))
	for _, r := range rows {
		rec, err := decodeRow(r)
		if err != nil {
			// A record no reader takes must not keep the venue from
			// starting: the job fails with what its row still says.
			e.log.Warn("unreadable record of an unfinished job; failing it", "job", r.ID, "err", err)
			rec = &venue.Job{ID: r.ID, Status: r.Status, Caller: r.Owner, Created: r.Created, Updated: r.Updated, Version: r.Version}
		}
		why := "The venue restarted before the job finished"
		if op, err := e.resolve(ctx, venue.Caller{DID: rec.Caller}, rec.Operation); err == nil {
			if e.outlives(op) && rec.Status != venue.StatusPending {
				continue // its Outliver takes it up; one that never started holds nothing there
			}
			// A paused job holds no execution: a resume starts one, here as
			// on another node, if its record holds all the job ran with.
			if rec.Status == venue.StatusPaused {
				stuck := unportable(rec, op)
				if stuck == "" {
					continue
				}
				why = "The venue restarted while the job was paused, and the job cannot resume from its record: " + stuck
			}
		}
		n := rec.Next(venue.StatusFailed, e.ms())
		n.Error = why
		row := rowOf(n)
		row.Stored = true // read from the store just now
		out = append(out, row)
	}
	if len(out) > 0 {
		if _, err := e.store.WriteJobs(ctx, out); err != nil {
			// A full disk must not keep the venue from starting: started, it
			// serves the reads and deletes that free space. The jobs stay as
			// the previous run left them until a start records their end.
			e.log.Error("could not record the end of the jobs the previous run left unfinished; they stay as they are until the next start",
				"count", len(out), "err", err)
			return nil
		}
		for _, r := range out {
			e.dropMessages(r.ID)
		}
		e.log.Info("failed jobs left unfinished by the previous run", "count", len(out))
	}
	return nil
}
