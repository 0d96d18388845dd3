package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	venue "github.com/gridvenue/venue"
)

// Job returns the caller's job record: the newest state if this node runs
// the job, else the stored one. Returns ENOTFOUND if the caller has no such
// job; another caller's job is as absent as a job that never was.
func (e *Engine) Job(ctx context.Context, id venue.JobID) (*venue.Job, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityRead, venue.NSJobs); err != nil {
		// A caller confined away from its own jobs (an agent) may still
		// hold a grant on another owner's.
		if other := e.grantedJob(ctx, id); other != nil && other.Caller != c.DID {
			return other, nil
		}
		return nil, err
	}
	rec, _, err := e.lookup(ctx, c, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND && len(c.Grants()) > 0 {
		// Grants open other owners' jobs; the caller's own it may not
		// follow (begun under another share) stay closed.
		if other := e.grantedJob(ctx, id); other != nil && other.Caller != c.DID {
			return other, nil
		}
	}
	return rec, err
}

// grantedJob returns another owner's job record when the caller holds a
// grant to read it (crud/read on <owner>/j, or on the job), as a read of
// the lattice path <owner>/j/<id> finds it; nil otherwise, so that the
// caller learns nothing of a job it may not read.
func (e *Engine) grantedJob(ctx context.Context, id venue.JobID) *venue.Job {
	rec := e.finished.get(id)
	if j := e.jobs.get(id); j != nil {
		rec = j.snapshot()
	}
	if rec == nil {
		row, err := e.store.Job(ctx, id)
		if err != nil {
			return nil
		}
		if rec, err = decodeRow(row); err != nil {
			return nil
		}
	}
	if e.Authorize(ctx, rec.Caller+"/"+venue.NSJobs+"/"+id.String(), venue.AbilityRead) != nil {
		return nil
	}
	return rec
}

// Jobs lists the caller's job ids, oldest first, with the caller's total.
// limit < 0 means all.
func (e *Engine) Jobs(ctx context.Context, offset, limit int) ([]venue.JobID, int, error) {
	c, _, err := e.callerFor(ctx, venue.NSJobs, venue.AbilityRead) // as a read of the path j lists them
	if err != nil {
		return nil, 0, err
	}
	rows, total, err := e.store.ListJobs(ctx, c.DID, offset, limit, false)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]venue.JobID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids, total, nil
}

// lookup finds the caller's job, returning the local entry too if this node
// runs it.
func (e *Engine) lookup(ctx context.Context, c venue.Caller, id venue.JobID) (*venue.Job, *job, error) {
	if j := e.jobs.get(id); j != nil {
		if rec := j.snapshot(); follows(c, rec) {
			return rec, j, nil
		}
		return nil, nil, jobNotFound(id)
	}
	if rec := e.finished.get(id); rec != nil {
		if follows(c, rec) {
			return rec, nil, nil
		}
		return nil, nil, jobNotFound(id)
	}
	row, err := e.store.Job(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND || (err == nil && row.Owner != c.DID) {
		return nil, nil, jobNotFound(id)
	}
	if err != nil {
		return nil, nil, err
	}
	rec, err := decodeRow(row)
	if err == nil && !follows(c, rec) {
		return nil, nil, jobNotFound(id)
	}
	return rec, nil, err
}

// follows reports whether rec is c's job to read and command: its own, and
// when c acts under a share (a UCAN sent as the bearer), begun under that
// share. A record does not otherwise say which of the owner's callers
// began it, and one share token read every record of its issuer: the
// outputs of reads of all its namespace.
func follows(c venue.Caller, rec *venue.Job) bool {
	return rec.Caller == c.DID && (c.Share() == "" || rec.Share == c.Share())
}

// shareLists refuses a listing of the caller's jobs to a caller acting
// under a share, which follows only the jobs begun under it: the store
// keeps no index by share to page them from.
func shareLists(c venue.Caller) error {
	if c.Share() == "" {
		return nil
	}
	return venue.Errorf(venue.EFORBIDDEN, "Capability denied: a UCAN sent as the bearer lists none of its issuer's jobs; "+
		"read each job begun under it by the id its invoke returned (GET /api/v1/jobs/{id}, or the path j/<id>)")
}

func jobNotFound(id venue.JobID) error { return venue.Errorf(venue.ENOTFOUND, "Job not found: %s", id) }

// Cancel ends the caller's job as CANCELLED and returns the final record.
// A job that has already ended is returned as it is.
// Returns ENOTFOUND if the caller has no such job.
func (e *Engine) Cancel(ctx context.Context, id venue.JobID) (*venue.Job, error) {
	return e.command(ctx, id, func(rec *venue.Job) (venue.JobStatus, error) {
		return venue.StatusCancelled, nil
	}, func(n *venue.Job) { n.Error = "Cancelled by the caller" }, errCancelled)
}

// Pause moves a job that is not finished or paused to PAUSED, stopping its
// execution; Resume starts it again from its original input.
// Returns ENOTFOUND if the caller has no such job and ECONFLICT if it has
// finished or is already paused.
func (e *Engine) Pause(ctx context.Context, id venue.JobID) (*venue.Job, error) {
	return e.command(ctx, id, func(rec *venue.Job) (venue.JobStatus, error) {
		if rec.Status.Terminal() || rec.Status == venue.StatusPaused {
			return "", venue.Errorf(venue.ECONFLICT, "Cannot pause job %s: it is %s", id, rec.Status)
		}
		if op, err := e.resolve(ctx, venue.Caller{DID: rec.Caller}, rec.Operation); err == nil && e.outlives(op) {
			// Its end comes from state outside the job (an agent's task
			// list), which a pause would not hold: the result would be
			// dropped, and the work done again on resume.
			return "", venue.Errorf(venue.ECONFLICT, "Cannot pause job %s: %s waits on state kept outside the job; cancel it instead", id, rec.Name)
		}
		return venue.StatusPaused, nil
	}, nil, errPaused)
}

// Resume moves a PAUSED job to STARTED and runs its operation again with
// the original input, on this node.
// Returns ENOTFOUND if the caller has no such job and ECONFLICT if it is not
// PAUSED.
func (e *Engine) Resume(ctx context.Context, id venue.JobID) (*venue.Job, error) {
	return e.command(ctx, id, func(rec *venue.Job) (venue.JobStatus, error) {
		if rec.Status != venue.StatusPaused {
			return "", venue.Errorf(venue.ECONFLICT, "Cannot resume job %s: it is %s, not PAUSED", id, rec.Status)
		}
		if e.life.Err() != nil { // judged under the job's lock, which the shutdown's settling takes too
			return "", errStopping
		}
		return venue.StatusStarted, nil
	}, nil, nil)
}

// command applies a client's command to a job. rule decides the new status
// from the current record; stop, if set, is the cause with which a running
// execution is stopped. A job this node runs changes in memory; any other
// is changed in the store, where the node running it (if any) hears of it.
func (e *Engine) command(ctx context.Context, id venue.JobID, rule func(*venue.Job) (venue.JobStatus, error),
	edit func(*venue.Job), stop error) (*venue.Job, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityInvoke, venue.NSJobs); err != nil {
		return nil, err
	}
	for tries := 0; ; tries++ {
		n, lost, err := e.commandOnce(ctx, c, id, rule, edit, stop)
		if !lost {
			return n, err
		}
		// Another node's write of the job won over this one (a pause
		// there as a cancel here, a second cancel there): judge the
		// command again on what the store kept, as on one node a cancel
		// of a job now CANCELLED answers it.
		if tries == 2 {
			return nil, venue.Errorf(venue.ECONFLICT, "Job %s changed while the command was applied; read it and try again", id)
		}
	}
}

// commandOnce applies a command once; lost reports that its write lost to
// another node's, or that the job left this node as it was looked up (a
// paused job let go): command judges again on what the store holds.
func (e *Engine) commandOnce(ctx context.Context, c venue.Caller, id venue.JobID, rule func(*venue.Job) (venue.JobStatus, error),
	edit func(*venue.Job), stop error) (*venue.Job, bool, error) {
	rec, j, err := e.lookup(ctx, c, id)
	if err != nil {
		return nil, false, err
	}
	if j == nil {
		return e.commandStored(ctx, rec, rule, edit)
	}
	j.mu.Lock()
	if e.jobs.get(id) != j {
		// The job left this node since the lookup (another node's write
		// won, or it was resumed there): a command on this entry would
		// start an execution nothing tracks, or write from a stale state.
		j.mu.Unlock()
		return nil, true, nil
	}
	rec = j.rec
	if rec.Status.Terminal() {
		t := j.last
		j.mu.Unlock()
		// The answer is the end once the store has it, and only if the
		// store kept it rather than another node's record.
		if err := t.wait(ctx); err != nil {
			return nil, false, err
		}
		if t.lost {
			return nil, true, nil
		}
		_, err := rule(rec)
		return rec, false, err
	}
	s, err := rule(rec)
	if err != nil {
		j.mu.Unlock()
		if venue.ErrorCode(err) == venue.ECONFLICT && e.caughtUp(j, rec) {
			// Judged on this node's copy, which another node's command
			// (a pause there, answered PAUSED) had already replaced in
			// the store before its note arrived: judge again on that.
			return nil, true, nil
		}
		return nil, false, err
	}
	n, err := e.transit(j, s, edit)
	e.retarget(j, s, stop)
	if err == nil && s == venue.StatusPaused {
		j.callerHolds()
	}
	t := j.last
	j.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	if err := t.wait(ctx); err != nil {
		return nil, false, err
	}
	return n, t.lost, nil
}

// caughtUp adopts the stored record of j, held here, when a command was
// refused on rec, this node's copy, and reports whether the copy was stale:
// another node changed the job and the note saying so has not been heard
// yet, so the command must be judged again on what the store holds.
func (e *Engine) caughtUp(j *job, rec *venue.Job) bool {
	if e.cfg.SingleNode {
		return false // no other node changes its jobs
	}
	e.adopt(j)
	if e.jobs.get(j.id) != j {
		return true
	}
	now := j.snapshot()
	return now.Version != rec.Version || now.Status != rec.Status
}

// retarget stops j's current execution for stop and, when the job was
// resumed, starts a new one. Call with j.mu held.
func (e *Engine) retarget(j *job, s venue.JobStatus, stop error) {
	if j.cancel != nil && stop != nil {
		j.cancel(stop)
		j.cancel = nil
	}
	j.run++
	if s == venue.StatusStarted {
		e.launch(j, j.run)
	}
}

// commandStored applies a command to a job no local execution holds: the
// record is changed in the store, first writer wins, and lost reports that
// another node's write won (command then judges again). A resumed job then
// runs here.
func (e *Engine) commandStored(ctx context.Context, rec *venue.Job, rule func(*venue.Job) (venue.JobStatus, error),
	edit func(*venue.Job)) (n *venue.Job, lost bool, err error) {
	s, err := rule(rec)
	if err != nil || rec.Status.Terminal() {
		return rec, false, err
	}
	if s == venue.StatusStarted {
		// Held here again, a resumed job is refused as a new one would be
		// while its caller or the node holds too many: a paused job holds
		// nothing, and a caller could otherwise pause jobs past every bound
		// and resume them all at once.
		if err := e.held.take(rec.Caller, len(rec.Input)); err != nil {
			return nil, false, err
		}
	}
	n = rec.Next(s, e.ms())
	n.Version = rec.Version + storedStep
	if edit != nil {
		edit(n)
	}
	row := rowOf(n)
	row.Stored = true // read from the store: if another node deletes it meanwhile, it stays deleted
	applied, err := e.store.WriteJobs(ctx, []JobRow{row})
	if err != nil || !applied[0] {
		if s == venue.StatusStarted {
			e.held.give(rec.Caller, len(rec.Input))
		}
		if err != nil {
			return nil, false, storeFailed(err)
		}
		return nil, true, nil
	}
	e.hub.publish(n)
	if s == venue.StatusStarted {
		e.adoptStored(ctx, n)
	}
	if s.Terminal() {
		e.dropMessages(n.ID) // replies sent while no node held the job
	}
	return n, false, nil
}

// storedStep is how far a command on a stored record moves the job's
// version. The store keeps a row with a greater version than its own, and
// the node running the job moves it on in memory, a version at a time,
// faster than its rows reach the store, and writes several moves as one
// row (STARTED and INPUT_REQUIRED as version 3). A command here on the
// stored version 1, written as version 2, was then overwritten by that
// version 3 as if it came after it: a pause answered PAUSED was lost. Past
// every version the running node can reach before it hears of the command,
// the command's row wins, and the node's next write loses and adopts it.
const storedStep = 1 << 20

// adoptStored takes over execution of a stored job that was resumed here,
// counted in e.held already.
func (e *Engine) adoptStored(ctx context.Context, rec *venue.Job) {
	// The record keeps the caller's DID only. The anonymous identity is
	// known by its DID, and must stay anonymous: resumed as its owner it
	// could write where anonymous callers may only invoke.
	c := venue.Caller{DID: rec.Caller, Anonymous: rec.Caller == e.publicDID}
	if rc, ok := venue.CallerFrom(ctx); ok && rc.DID == rec.Caller {
		// The record does not keep what confined the caller that started
		// the job (a UCAN sent as the bearer, say): the job resumes with
		// the authority of whoever resumed it, its owner by the same DID,
		// as a job it invoked would, and never with more than that.
		rc.Anonymous = rc.Anonymous || c.Anonymous
		c = rc
	}
	j := &job{id: rec.ID, caller: c, input: rec.Input, mask: &masker{}, rec: rec, spawned: rec.Parent != nil,
		done: make(chan struct{}), inbox: make(chan struct{}, 1), last: doneTicket()}
	j.messaged.Store(true) // messages may have come while no node held it
	j.stored.Store(true)
	op, err := e.resolve(ctx, c, rec.Operation)
	if err == nil {
		if why := unportable(rec, op); why != "" {
			err = venue.Errorf(venue.ECONFLICT, "Job cannot resume on this node: %s", why)
		}
	}
	held, prev := e.holdAdopted(j)
	switch {
	case held && prev != nil:
		// Another resume here adopted an older state of the job: its
		// execution is stale (its writes lose to this one's), and, no
		// longer in the active set, nothing else would ever stop it.
		e.displace(prev)
	case !held && prev != nil:
		e.held.give(c.DID, len(j.input)) // taken by commandStored
		return                           // a newer state of the job runs here already
	}
	if !held {
		// Resumed in the store as this node stopped: nothing will run it.
		e.held.give(c.DID, len(j.input))
		j.uncounted = true
		err = venue.Errorf(venue.EUNAVAILABLE, "The venue shut down before the job resumed")
	} else {
		e.unfinished.Add(1)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		e.transit(j, venue.StatusFailed, func(n *venue.Job) { n.Error = venue.ErrorMessage(err) })
		return
	}
	j.op = op
	e.launch(j, j.run)
}

// holdAdopted makes j, a job resumed here from the store, the entry for its
// id. An entry already there (two resumes here raced, each from its own
// stored state) gives way only to a newer record: held reports whether j
// is now the entry, prev the entry it replaced or, when not held, the
// newer one kept (nil when the engine is stopping).
func (e *Engine) holdAdopted(j *job) (held bool, prev *job) {
	for {
		prev = e.jobs.get(j.id)
		if prev != nil && prev.snapshot().Version >= j.rec.Version {
			return false, prev
		}
		if e.jobs.replace(prev, j) {
			return true, prev
		}
		if e.jobs.isStopping() {
			return false, nil
		}
	}
}

// displace stops j, a job this node held until another entry replaced it.
func (e *Engine) displace(j *job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stopRun()
	e.uncount(j)
	if j.moved != nil && !j.gone {
		close(j.moved)
		j.gone = true
	}
}

// unportable says why a stored job cannot run on another node than the
// one that started it (or after a restart), or "" if it can: its record
// does not hold all it ran with, its input as given (secret fields, and
// URL user info, are hidden in the record) or the authority of the job
// that spawned it (an agent's bound, a parent's grants). Run from the
// record, it would send the wrong credentials or act with more authority
// than it had.
func unportable(rec *venue.Job, op *venue.Operation) string {
	switch {
	case holdsFields(rec.Input, op.SecretFields):
		return "its secret inputs are kept only by the node that started it"
	case hidesUserInfo(rec.Input):
		return "its input held a URL's user info (a name and password), which is kept only by the node that started it"
	case rec.Parent != nil:
		return fmt.Sprintf("it was started by job %s, whose authority only the node that ran it holds", rec.Parent)
	}
	return ""
}

func doneTicket() *ticket {
	t := &ticket{done: make(chan struct{})}
	close(t.done)
	return t
}

// DeleteJob removes the record of the caller's finished job.
// Returns ENOTFOUND if the caller has no such job and ECONFLICT if it has
// not finished (cancel it first).
func (e *Engine) DeleteJob(ctx context.Context, id venue.JobID) error {
	c, err := e.caller(ctx)
	if err != nil {
		return err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityDelete, venue.NSJobs); err != nil {
		return err
	}
	rec, j, err := e.lookup(ctx, c, id)
	if err != nil {
		return err
	}
	if !rec.Status.Terminal() && j != nil && e.caughtUp(j, rec) {
		// Another node ended the job (a cancel there) before its note
		// reached this node, which held the job as it was.
		if rec, j, err = e.lookup(ctx, c, id); err != nil {
			return err
		}
	}
	if !rec.Status.Terminal() {
		return venue.Errorf(venue.ECONFLICT, "Job %s is %s: cancel it before deleting it", id, rec.Status)
	}
	if j != nil {
		_, t := j.snapshotTicket()
		if err := t.wait(ctx); err != nil {
			return storeFailed(err)
		}
		e.jobs.drop(j)
	}
	if err := e.store.DeleteJob(ctx, c.DID, id); err != nil {
		return err
	}
	e.finished.forget(id)
	return nil
}

// Reply queues a client's message for the caller's job and wakes the job if
// it waits for input. A message that is not a JSON object is wrapped as
// {"content": message}. Returns the number of messages queued.
// Returns ENOTFOUND if the caller has no such job and ECONFLICT if it has
// finished.
func (e *Engine) Reply(ctx context.Context, id venue.JobID, msg json.RawMessage) (int, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return 0, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityInvoke, venue.NSJobs); err != nil {
		return 0, err
	}
	rec, j, err := e.lookup(ctx, c, id)
	if err != nil {
		return 0, err
	}
	if rec.Status.Terminal() {
		return 0, venue.Errorf(venue.ECONFLICT, "Job is in terminal state: %s", id)
	}
	if !json.Valid(msg) {
		return 0, venue.Errorf(venue.EINVALID, "Reply must be a JSON value")
	}
	if err := refuseDuplicates("Reply", msg); err != nil {
		return 0, err
	}
	if err := refuseDeep("Reply", msg); err != nil {
		return 0, err
	}
	if err := refuseMisread("Reply", msg); err != nil {
		return 0, err
	}
	if msg[0] != '{' {
		msg = append(append(json.RawMessage(`{"content":`), msg...), '}')
	}
	if j != nil {
		j.messaged.Store(true) // before the store has it: the job may end at once
	}
	depth, err := e.store.AddJobMessage(ctx, id, msg)
	if err != nil {
		return 0, err
	}
	if j != nil {
		j.wake()
	}
	return depth, nil
}

// wake tells a job waiting for input that a message is queued.
func (j *job) wake() {
	select {
	case j.inbox <- struct{}{}:
	default:
	}
}

// Await waits up to timeout for the caller's job to end and returns its
// record as it then stands, ended or not.
// Returns ENOTFOUND if the caller has no such job, and EUNAVAILABLE if the
// engine closed with the job not ended.
func (e *Engine) Await(ctx context.Context, id venue.JobID, timeout time.Duration) (*venue.Job, error) {
	if timeout <= 0 {
		return e.Job(ctx, id) // waiting no time is reading: a context already over would fail the read
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch, err := e.Watch(ctx, id)
	if err != nil {
		return nil, err
	}
	var last *venue.Job
	for j := range ch {
		last = j
	}
	if last == nil || !last.Status.Terminal() {
		select {
		case <-e.closed:
			// Nothing here will change it any more: a caller waiting in a
			// loop would spin.
			return nil, errStopping
		default:
		}
		// The stream ended early (deadline, or it fell behind): read afresh.
		return e.Job(context.WithoutCancel(ctx), id)
	}
	return last, nil
}
