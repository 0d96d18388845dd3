package native

import (
	"context"
	"encoding/json"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

type jobParams struct {
	ID      string `json:"id"`
	Timeout *int64 `json:"timeout"`
}

func (p *jobParams) parse(in json.RawMessage) (venue.JobID, error) {
	if err := json.Unmarshal(in, p); err != nil {
		return venue.JobID{}, venue.Errorf(venue.EINVALID, "input must be {\"id\": job id, \"timeout\": ms}")
	}
	return venue.ParseJobID(p.ID)
}

// defaultResultTimeout is how long grid:job-result waits without a timeout.
const defaultResultTimeout = 30 * time.Second

// jobResult waits for one of the caller's jobs and returns its output; a
// job that failed fails this one with the same error.
func jobResult(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p jobParams
	id, err := p.parse(in)
	if err != nil {
		return nil, err
	}
	wait := defaultResultTimeout
	if p.Timeout != nil {
		wait = time.Duration(*p.Timeout) * time.Millisecond
	}
	// It only waits from here: it gives its worker back, which the job it
	// waits on may need (with one slot a caller's, it held it until its
	// timeout while that job waited for one).
	env.Detach()
	rec, err := env.Engine().Await(env.Context(ctx), id, wait)
	if err != nil {
		return nil, err
	}
	switch rec.Status {
	case venue.StatusComplete:
		return rec.Output, nil
	case venue.StatusFailed, venue.StatusCancelled, venue.StatusRejected:
		return nil, venue.Errorf(venue.EINVALID, "Job %s is %s: %s", id, rec.Status, rec.Error)
	}
	return nil, venue.Errorf(venue.ETIMEOUT, "Job %s did not finish within %d ms; it is %s", id, wait.Milliseconds(), rec.Status)
}

// jobStatus returns the record of one of the caller's jobs.
func jobStatus(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p jobParams
	id, err := p.parse(in)
	if err != nil {
		return nil, err
	}
	rec, err := env.Engine().Job(env.Context(ctx), id)
	if err != nil {
		return nil, err
	}
	return rec.MarshalJSON()
}
