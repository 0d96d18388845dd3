package runtime

import "context"

// PutSecretUnchecked stores a secret as a venue that did not check values
// would have, for tests of values stored before a rule existed.
func (e *Engine) PutSecretUnchecked(ctx context.Context, owner, name, value string) error {
	sealed, err := e.seal(owner, name, value)
	if err != nil {
		return err
	}
	return e.store.PutSecret(ctx, owner, name, sealed, e.ms(), 0)
}

// Resync is what the engine does when its store's notes may have been
// missed (NoteResync).
func (e *Engine) Resync() { e.onNote(JobNote{Kind: NoteResync}) }

// PruneJobs prunes the job records past the retention now, as pruneLoop
// does on its ticks.
func (e *Engine) PruneJobs(ctx context.Context) (int, error) { return e.pruneJobs(ctx) }

// Counts is what the engine holds for jobs: the active set, the unfinished
// count, the held jobs and bytes, executions under way, and the jobs
// watched.
type Counts struct {
	Active, Unfinished, HeldJobs, Executing, Watched int
	HeldBytes                                        int64
}

// HeldCounts reports the engine's job bookkeeping, for leak checks.
func (e *Engine) HeldCounts() Counts {
	e.held.mu.Lock()
	hj, hb := e.held.total.jobs, e.held.total.bytes
	e.held.mu.Unlock()
	return Counts{Active: len(e.jobs.list()), Unfinished: int(e.unfinished.Load()), HeldJobs: hj, HeldBytes: hb,
		Executing: int(e.executing.Load()), Watched: len(e.hub.ids())}
}
