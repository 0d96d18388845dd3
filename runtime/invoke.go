package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// InvokeRequest is an invocation as a door hands it to the engine.
type InvokeRequest struct {
	Operation string          // an operation reference in any form of the spec
	Input     json.RawMessage // nil or null means {}
	Wait      time.Duration   // 0 returns once the job is recorded; else wait up to this (capped at MaxWait)
	Parent    *venue.JobID    // the job spawning this one, if any
	UCANs     []string        // UCAN tokens proving grants beyond the caller's own namespace, for this job
}

// Invoke records a job for the caller and runs it. Without Wait it returns
// the PENDING record once that record is durable; with Wait it returns the
// record as it stands when the job ends or the wait runs out.
// Returns EINVALID if the reference resolves to nothing or the input breaks
// the operation's schema, EUNAVAILABLE if the record cannot be stored,
// EFORBIDDEN if a UCAN in req.UCANs fails verification, and EUNAUTHORIZED
// when the venue does not let anonymous callers invoke.
func (e *Engine) Invoke(ctx context.Context, req InvokeRequest) (*venue.Job, error) {
	_, rec, _, err := e.invoke(ctx, req)
	return rec, err
}

// InvokeJSON is Invoke for a door that answers with the record: it also
// returns the record's JSON (as venue.Job.AppendJSON gives it) when that
// is what the store was just handed, which spares encoding it twice; nil
// when the door must encode the record itself.
func (e *Engine) InvokeJSON(ctx context.Context, req InvokeRequest) (*venue.Job, []byte, error) {
	_, rec, enc, err := e.invoke(ctx, req)
	return rec, enc, err
}

func (e *Engine) invoke(ctx context.Context, req InvokeRequest) (*job, *venue.Job, []byte, error) {
	ctx, err := e.WithProofs(ctx, req.UCANs)
	if err != nil {
		return nil, nil, nil, err
	}
	c, err := e.caller(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := e.authorizeOwn(ctx, c, venue.AbilityInvoke, venue.NSJobs); err != nil {
		return nil, nil, nil, err
	}
	// A job invoked with wait is started before its PENDING row is durable
	// (lazy: a quick job is written once, finished), unless the store has
	// been refusing commits: started then, it ran its operation (an HTTP
	// POST) while its caller was told 503 "try again" with no record of the
	// run, and the retry ran it twice (an audit's full disk). Until a commit
	// succeeds again, such a job waits for its row as one without wait does.
	lazy := req.Wait > 0 && e.writeFailures.Load() == 0
	j, err := e.submit(ctx, c, req, lazy)
	if err != nil {
		return nil, nil, nil, err
	}
	if !lazy {
		rec, t := j.snapshotTicket()
		// Even if the caller goes meanwhile: the row is on its way to the
		// store, and a job stored must run, not stay PENDING for good.
		<-t.done
		if t.err != nil {
			e.forsake(j)
			return nil, nil, nil, storeFailed(t.err)
		}
		if req.Wait <= 0 {
			e.start(j)
			return j, rec, t.written(rec), nil
		}
	}
	e.start(j)
	rec, enc, err := e.await(ctx, j, req.Wait)
	return j, rec, enc, err
}

// Run invokes and waits for the output, for callers that want the result
// and not the job. The job is recorded like any other.
// Returns the job's failure with the code the operation gave it:
// EFORBIDDEN or EUNAUTHORIZED for a capability denied (the job is
// REJECTED; the message is the denial's own), and for a FAILED job
// EINVALID, ENOTFOUND, ECONFLICT (an agent busy or in the wrong state),
// ETIMEOUT (what it waited on did not come in time: grid:job-result's
// timeout, its own deadline) or ETOOLARGE (a value past the venue's limit)
// when the operation said so, EINTERNAL for
// anything else. ECONFLICT when the job was cancelled or paused or waits
// for its caller's reply, ETIMEOUT when it outlasts MaxWait, EUNAVAILABLE when ctx
// ends first (the venue is shutting down).
func (e *Engine) Run(ctx context.Context, req InvokeRequest) (json.RawMessage, error) {
	req.Wait = e.cfg.MaxWait
	j, rec, _, err := e.invoke(ctx, req)
	if err != nil {
		return nil, err
	}
	switch rec.Status {
	case venue.StatusComplete:
		return rec.Output, nil
	case venue.StatusFailed, venue.StatusRejected:
		j.mu.Lock()
		code := j.errCode
		j.mu.Unlock()
		return nil, runFailure(code, rec.Error)
	case venue.StatusCancelled:
		return nil, venue.Errorf(venue.ECONFLICT, "Operation %s: %s", rec.Status, rec.Error)
	case venue.StatusPaused:
		return nil, venue.Errorf(venue.ECONFLICT, "Operation was paused: job %s is PAUSED; resume it and read the job for its output", rec.ID)
	case venue.StatusInputRequired, venue.StatusAuthRequired:
		return nil, venue.Errorf(venue.ECONFLICT, "Operation is waiting for its caller (job %s is %s, asking %s), which a run cannot answer: invoke it instead and reply to the job", rec.ID, rec.Status, clipRef(string(rec.Message)))
	}
	if ctx.Err() != nil && e.life.Err() != nil {
		return nil, venue.Errorf(venue.EUNAVAILABLE, "The venue stopped waiting for the operation (it is shutting down); job %s is %s", rec.ID, rec.Status)
	}
	if ctx.Err() != nil { // as the venue's log will tell it: nobody reads this answer
		return nil, venue.Errorf(venue.EUNAVAILABLE, "The caller stopped waiting for the operation (its connection closed, or its request ended); job %s is %s and goes on", rec.ID, rec.Status)
	}
	return nil, venue.Errorf(venue.ETIMEOUT, "Operation did not finish within %s; job %s is %s and goes on: follow it at /api/v1/jobs/%[2]s, or cancel it there", e.cfg.MaxWait, rec.ID, rec.Status)
}

// ErrOperationFailed is in Run's error for a job that ended FAILED or
// REJECTED (errors.Is): the operation's failure, which a door reports as
// the reference does (500 for most) but need not log as the venue's own.
var ErrOperationFailed = errors.New("the operation failed")

// failedJob is Run's error for a failed job: its coded error, and
// ErrOperationFailed.
type failedJob struct{ err error }

func (f *failedJob) Error() string   { return f.err.Error() }
func (f *failedJob) Unwrap() []error { return []error{f.err, ErrOperationFailed} }

// runFailure is Run's error for a job that ended with code and message msg.
// stoppedCode marks a job failed because the venue stopped, which is no
// code an operation can give: Run answers it as the venue's unavailability.
const stoppedCode = "venue stopped"

func runFailure(code, msg string) error {
	switch code {
	case venue.EFORBIDDEN, venue.EUNAUTHORIZED:
		return &failedJob{venue.Errorf(code, "%s", msg)}
	case stoppedCode:
		return &failedJob{venue.Errorf(venue.EUNAVAILABLE, "The venue stopped before the operation finished: %s", msg)}
	case venue.EINVALID, venue.ENOTFOUND, venue.ECONFLICT, venue.ETIMEOUT, venue.ETOOLARGE:
	default:
		code = venue.EINTERNAL
	}
	return &failedJob{venue.Errorf(code, "Operation failed: %s", msg)}
}

// submit resolves, validates and records a new PENDING job, its row put
// lazily or not (see writer).
func (e *Engine) submit(ctx context.Context, c venue.Caller, req InvokeRequest, lazy bool) (*job, error) {
	op, err := e.resolve(ctx, c, req.Operation)
	if err != nil {
		return nil, err
	}
	input, err := e.checkInput(op, req.Input)
	if err != nil {
		return nil, err
	}
	if e.execs[op.Adapter] == nil {
		return nil, venue.Errorf(venue.EINVALID, "Operation %s needs adapter '%s', which this venue does not run", req.Operation, op.Adapter)
	}
	if req.Parent != nil {
		e.held.add(c.DID, len(input))
	} else if err := e.held.take(c.DID, len(input)); err != nil {
		return nil, err
	}
	now := e.ms()
	rec := &venue.Job{ID: e.ids.next(), Status: venue.StatusPending, Created: now, Updated: now,
		Operation: req.Operation, Name: op.RecordName(), Caller: c.DID, Share: c.Share(), Input: maskFields(hideUserInfo(input), op.SecretFields),
		Parent: req.Parent, Version: 1}
	j := &job{id: rec.ID, caller: c, op: op, input: input, mask: &masker{}, rec: rec, spawned: req.Parent != nil, moved: make(chan struct{}),
		done: make(chan struct{}), inbox: make(chan struct{}, 1)}
	if req.Wait > 0 {
		j.asks = make(chan struct{}) // only a waiting invoke listens
	}
	if !e.jobs.put(j) {
		e.held.give(c.DID, len(input))
		return nil, errStopping
	}
	e.unfinished.Add(1)
	// A job invoked with wait is not handed out until it ends (or the wait
	// does, when its newest record is made durable): its PENDING may be lazy.
	j.last = e.writer.put(rec, &j.stored, lazy)
	e.touchUser(ctx, c.DID)
	return j, nil
}

// checkInput compacts the input (which also proves it is JSON) and checks
// it against the operation's input schema. Input that is compact already
// (most is) is only checked, at a fifth of the cost of rewriting it.
func (e *Engine) checkInput(op *venue.Operation, in json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(in)) == 0 || string(in) == "null" {
		in = json.RawMessage(`{}`)
	}
	if jsonscan.Compacted(in) { // so nested at most jsonscan.MaxDepth, far within maxDepth
		in = bytes.Clone(in) // the job keeps its own input, as a compacted one would be
	} else {
		if err := refuseDeep("Input", in); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		buf.Grow(len(in))
		if err := json.Compact(&buf, in); err != nil {
			return nil, venue.Errorf(venue.EINVALID, "Input is not valid JSON: %v", err)
		}
		in = buf.Bytes()
	}
	if err := refuseDuplicates("Input", in); err != nil {
		return nil, err
	}
	if err := refuseMisread("Input", in); err != nil {
		return nil, err
	}
	s, err := e.inputSchema(op)
	if err != nil {
		return nil, err
	}
	if err := s.validate(in); err != nil {
		return nil, err
	}
	return in, nil
}

// await waits for j to end or to ask its caller (INPUT_REQUIRED or
// AUTH_REQUIRED), for wait (at most MaxWait) or for the caller to go away,
// then returns the record once it is durable, and its JSON when
// the ticket has it.
func (e *Engine) await(ctx context.Context, j *job, wait time.Duration) (*venue.Job, []byte, error) {
	timer := time.NewTimer(min(wait, e.cfg.MaxWait))
	defer timer.Stop()
	var rec *venue.Job
	var t *ticket
	moved := j.moved
	for asks := j.asks; ; {
		select {
		case <-asks: // the caller holds the next move: waiting longer is waiting on itself
			if rec, t = j.snapshotTicket(); !rec.Status.Terminal() && !waitsOnCaller(rec.Status) {
				asks = nil // answered or resumed already: wait on for its end
				continue
			}
		case <-j.done:
			rec, t = j.snapshotTicket()
		case <-moved:
			rec, err := e.awaitElsewhere(ctx, j.id, timer.C)
			return rec, nil, err
		case <-timer.C:
			rec, t = j.snapshotTicket()
		case <-ctx.Done():
			rec, t = j.snapshotTicket()
		}
		break
	}
	<-t.done // even if the caller went: the record it is handed must be durable
	if t.err != nil {
		e.forsake(j)
		if j.stored.Load() {
			// The job is stored and goes on (its rows are written again):
			// its caller must follow it, not invoke it again.
			return nil, nil, venue.Errorf(venue.EUNAVAILABLE, "Job %s is %s, but its record could not be stored yet (%s). It is written again once the store takes it: follow the job at /api/v1/jobs/%[1]s rather than invoking again",
				rec.ID, rec.Status, venue.ErrorMessage(storeFailed(t.err)))
		}
		return nil, nil, storeFailed(t.err)
	}
	if t.lost {
		// Another node's write of the job won (a cancel sent there as the
		// job ended here): the answer is what the store kept, which
		// lose has made j's record.
		rec, _ = j.snapshotTicket()
		return rec, nil, nil
	}
	return rec, t.written(rec), nil
}

// awaitElsewhere waits, as await does, for a job another node has taken
// over, following its record in the store.
func (e *Engine) awaitElsewhere(ctx context.Context, id venue.JobID, timeout <-chan time.Time) (*venue.Job, error) {
	ch := e.hub.subscribe(id) // before the read, so no change falls between
	defer e.hub.unsubscribe(id, ch)
	row, err := e.store.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := decodeRow(row)
	for err == nil && !rec.Status.Terminal() && !waitsOnCaller(rec.Status) {
		select {
		case n, ok := <-ch:
			if !ok {
				return rec, nil // fell behind: the record as last seen
			}
			if n.Version > rec.Version {
				rec = n
			}
			continue
		case <-timeout:
		case <-ctx.Done():
		}
		break
	}
	return rec, err
}

// asking reports whether a job in status s waits on its caller.
func asking(s venue.JobStatus) bool {
	return s == venue.StatusInputRequired || s == venue.StatusAuthRequired
}

// waitsOnCaller reports whether a job in status s can go on only by its
// caller's move: a reply, or a resume.
func waitsOnCaller(s venue.JobStatus) bool {
	return asking(s) || s == venue.StatusPaused
}

func (j *job) snapshotTicket() (*venue.Job, *ticket) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec, j.last
}

// forsake gives up j, whose invoker was told its record could not be
// stored (its first, before it started; or the one its wait ended on), if
// the store never took a row of it: nobody has its id, and nothing would
// ever end it here (an audit's outage left 29,000 such jobs in memory). A
// job stored before goes on: its rows are written again.
func (e *Engine) forsake(j *job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stored.Load() {
		return
	}
	j.stopRun()
	e.jobs.drop(j)
	e.uncount(j)
	// A later state it reached meanwhile, queued, would store a record
	// nobody runs and nobody has the id of.
	e.writer.forget(j.id, venue.Errorf(venue.EUNAVAILABLE, "The job was given up: its record could not be stored"))
}

// storeFailed words a failed write of a job record; an unavailable store
// or a wait cut short keeps its own words. The store's own (an address, a
// driver's message) goes to the operator's log, not to the caller.
func storeFailed(err error) error {
	if c := venue.ErrorCode(err); c == venue.EUNAVAILABLE || c == venue.ETIMEOUT {
		return err
	}
	return venue.Errorf(venue.EUNAVAILABLE, "The job record could not be stored: the venue's store is failing or unreachable; try again shortly")
}
