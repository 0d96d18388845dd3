package runtime

import (
	"context"
	"time"
)

// Job records are kept until their owner deletes them, unless the operator
// sets a retention (Config.JobRetention): then every node deletes the
// records of jobs that ended longer ago than that. A venue taking
// thousands of invokes a second writes gigabytes of records a day, so a
// durable venue left running needs one. Unfinished jobs (paused, waiting
// for their caller) are kept however old; nodes sharing a store prune side
// by side, each deleting what it finds.
const (
	pruneBatch = 500                   // records deleted per statement: the writer waits behind each
	prunePause = 20 * time.Millisecond // between batches, so job records are written meanwhile
)

// pruneEvery is how often the records are pruned for a retention of r: a
// tenth of it, between a minute and ten.
func pruneEvery(r time.Duration) time.Duration {
	return min(max(r/10, time.Minute), 10*time.Minute)
}

// pruneLoop prunes once at start and then every pruneEvery, until the
// engine closes.
func (e *Engine) pruneLoop() {
	defer e.background.Done()
	t := time.NewTicker(pruneEvery(e.cfg.JobRetention))
	defer t.Stop()
	for {
		if _, err := e.pruneJobs(e.life); err != nil && e.life.Err() == nil {
			e.log.Error("prune job records", "retention", e.cfg.JobRetention, "err", err)
		}
		select {
		case <-t.C:
		case <-e.life.Done():
			return
		}
	}
}

// pruneJobs deletes the records of jobs that ended more than the retention
// ago, a batch at a time, and reports how many.
func (e *Engine) pruneJobs(ctx context.Context) (int, error) {
	if e.cfg.JobRetention <= 0 {
		return 0, nil
	}
	before := e.now().Add(-e.cfg.JobRetention).UnixMilli()
	pruned := 0
	defer func() {
		if pruned > 0 {
			e.log.Info("pruned job records", "count", pruned, "retention", e.cfg.JobRetention)
		}
	}()
	for {
		ids, err := e.store.PruneJobs(ctx, before, pruneBatch)
		for _, id := range ids {
			e.finished.forget(id)
		}
		pruned += len(ids)
		if err != nil || len(ids) < pruneBatch {
			return pruned, err
		}
		select {
		case <-time.After(prunePause):
		case <-ctx.Done():
			return pruned, context.Cause(ctx)
		}
	}
}
