package runtime

import (
	"context"
	"encoding/json"

	venue "github.com/gridvenue/venue"
)

// Outliver is implemented by an executor some of whose jobs wait on state
// kept in the store rather than on the process running them, such as an
// agent's task, which waits for its agent to resolve it. Such a job is
// failed neither when the venue shuts down nor when a single-node venue
// restarts: it stays open in the store, and whatever keeps that state
// ends it with Settle.
type Outliver interface {
	Outlives(op *venue.Operation) bool
}

func (e *Engine) outlives(op *venue.Operation) bool {
	if op == nil {
		return false
	}
	o, ok := e.execs[op.Adapter].(Outliver)
	return ok && o.Outlives(op)
}

// Settle ends the caller's job that no execution on this node holds (one
// an Outliver left open across a restart, or one running on another node)
// with status: COMPLETE with output, or a failure with msg as its error.
// It reports whether it ended the job. A job that has ended, or that an
// execution here holds (which ends it itself), is left as it is, as is
// one another writer changed first.
// Returns ENOTFOUND if the caller has no such job and EINVALID for a status
// that is not terminal.
func (e *Engine) Settle(ctx context.Context, id venue.JobID, status venue.JobStatus, output json.RawMessage, msg string) (bool, error) {
	if !status.Terminal() {
		return false, venue.Errorf(venue.EINVALID, "Settle needs a terminal status, not %s", status)
	}
	c, err := e.caller(ctx)
	if err != nil {
		return false, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityInvoke, venue.NSJobs); err != nil {
		return false, err
	}
	rec, j, err := e.lookup(ctx, c, id)
	if err != nil || rec.Status.Terminal() {
		return false, err
	}
	if status == venue.StatusComplete {
		if output, err = e.checkOutput(output); err != nil {
			status, output, msg = venue.StatusFailed, nil, venue.ErrorMessage(err)
		}
	} else {
		output = nil
	}
	edit := func(n *venue.Job) { n.Output, n.Error = output, msg }
	if j != nil {
		return e.settleHeld(ctx, j, status, edit)
	}
	_, lost, err := e.commandStored(ctx, rec, func(*venue.Job) (venue.JobStatus, error) { return status, nil }, edit)
	if lost {
		return false, nil // another node ended or changed it first
	}
	return err == nil, err
}

// settleHeld ends a job held here that its Outliver holds (HandOver) once
// the engine is stopping: an agent's run that resolves the task as the
// venue stops would otherwise find nobody to end its job, and the task,
// gone from the agent's record, would keep it open for good. The execution,
// stopped or about to be, counts for nothing after. Otherwise an execution
// here holds the job and ends it itself. It reports whether the end is
// stored.
func (e *Engine) settleHeld(ctx context.Context, j *job, status venue.JobStatus, edit func(*venue.Job)) (bool, error) {
	j.mu.Lock()
	if !j.handed || e.life.Err() == nil || j.rec.Status.Terminal() {
		j.mu.Unlock()
		return false, nil
	}
	j.run++ // a late finish of the stopped execution counts for nothing
	_, err := e.transit(j, status, edit)
	t := j.last
	j.mu.Unlock()
	if err == nil {
		err = t.wait(ctx) // the end of a job settled after the engine closed is refused here
	}
	return err == nil && !t.lost, err
}

// HandOver records that the executor of an Outliver's job now keeps what
// the job waits on in the store (an agent has its task queued): from here
// on a shutdown leaves the job open for the Outliver to Settle, where
// before it failed the job, whose work nothing else would take up.
func (env *Env) HandOver() {
	env.j.mu.Lock()
	env.j.handed = true
	env.j.mu.Unlock()
}
