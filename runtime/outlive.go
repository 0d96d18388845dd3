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
		return e.settleHeld(j, status, edit)
	}
	_, lost, err := e.commandStored(ctx, rec, func(*venue.Job) (venue.JobStatus, error) { return status, nil }, edit)
	if lost {
		return false, nil // another node ended or changed it first
	}
	return err == nil, err
}

// settleHeld ends a job held here whose execution the shutdown stopped and
// left to its Outliver: an agent's run that resolves the task as the venue
// stops would otherwise find nobody to end its job, and the task, gone
// from the agent's record, would keep it open for good. A job an execution
// here still holds ends itself.
func (e *Engine) settleHeld(j *job, status venue.JobStatus, edit func(*venue.Job)) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.leftOpen || j.rec.Status.Terminal() {
		return false, nil
	}
	if _, err := e.transit(j, status, edit); err != nil {
		return false, err
	}
	return true, nil
}
