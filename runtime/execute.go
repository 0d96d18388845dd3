package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

var errTimeout = errors.New("job deadline passed")

// start launches the job's current run.
func (e *Engine) start(j *job) {
	j.mu.Lock()
	run := j.run
	j.mu.Unlock()
	e.launch(j, run)
}

// launch runs execution run of j on a reused worker goroutine.
func (e *Engine) launch(j *job, run int) {
	e.workers.run(func() { e.execute(j, run) })
}

// execute runs one execution of j: it waits for a worker slot, moves the job
// to STARTED and hands it to its executor. A pause, resume or cancel bumps
// j.run, which makes a stale execution's result count for nothing.
func (e *Engine) execute(j *job, run int) {
	e.executing.Add(1)
	defer e.executing.Add(-1)
	env := &Env{e: e, j: j, run: run}
	if e.acquireSlots(e.life, j) != nil {
		return // the engine closed first: Close fails the job
	}
	env.held = true
	defer env.releaseSlot()
	if e.life.Err() != nil {
		return // a slot a closing engine freed: nothing starts now, Close fails the job
	}
	ctx, ok := e.begin(j, run)
	if !ok {
		return
	}
	out, err := e.safeExecute(ctx, j, env)
	e.finish(j, run, ctx, out, err)
}

// safeExecute runs j's executor, turning a panic into the job's failure:
// an operation's bug, or input it did not expect (an answer from a remote
// server, say), ends its job, not the venue process with every other job.
func (e *Engine) safeExecute(ctx context.Context, j *job, env *Env) (out json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			e.log.Error("operation panicked", "operation", j.op.Adapter, "job", j.rec.ID.String(),
				"panic", j.mask.text(fmt.Sprint(v)), "stack", string(debug.Stack()))
			out, err = nil, venue.Errorf(venue.EINTERNAL, "Operation %s failed unexpectedly (a bug of the venue's: it is logged)", j.op.Adapter)
		}
	}()
	return e.execs[j.op.Adapter].Execute(ctx, j.op, j.input, env)
}

// begin checks the run is still wanted, arms its deadline and cancel, and
// moves a PENDING job to STARTED.
func (e *Engine) begin(j *job, run int) (context.Context, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.rec.Status
	if j.run != run || (st != venue.StatusPending && st != venue.StatusStarted) {
		return nil, false
	}
	// A timer cancelling with errTimeout, rather than a deadline context
	// under the cancel one: one context less to make and link for every job.
	ctx, cancel := context.WithCancelCause(venue.WithCaller(context.Background(), j.caller))
	timer := time.AfterFunc(e.cfg.JobTimeout, func() { cancel(errTimeout) })
	j.cancel = func(cause error) { cancel(cause); timer.Stop() }
	if st == venue.StatusPending {
		// Lazily: a quick job's STARTED is replaced by its outcome unwritten.
		if _, err := e.transitAs(j, venue.StatusStarted, nil, true); err != nil {
			return nil, false
		}
	}
	return ctx, true
}

// finish records the outcome of run, unless the job moved on meanwhile
// (paused, cancelled, resumed into a newer run).
func (e *Engine) finish(j *job, run int, ctx context.Context, out json.RawMessage, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.run != run {
		return
	}
	if j.cancel != nil {
		j.cancel(nil)
		j.cancel = nil
	}
	if st := j.rec.Status; st.Terminal() || st == venue.StatusPaused {
		return
	}
	if j.handed && context.Cause(ctx) == errShutdown && (errors.Is(err, errShutdown) || errors.Is(err, context.Canceled)) {
		// Stopped by the shutdown once its Outliver holds what it waits
		// on: open in the store for the Outliver to settle, here as the
		// venue stops or after the restart. An outcome it returned (it may
		// have been resolved as the venue stopped) is recorded.
		return
	}
	if err == nil {
		out, err = e.checkOutput(out)
	}
	if err == nil {
		err = e.checkDeclaredOutput(j.op, out)
	}
	if err != nil {
		j.errCode = venue.ErrorCode(err)
		if context.Cause(ctx) == errShutdown {
			j.errCode = stoppedCode // not the operation's failure: a run answers 503
		}
		msg := failure(ctx, err, e.cfg.JobTimeout.String())
		e.transit(j, outcome(err), func(n *venue.Job) { n.Error = msg })
		return
	}
	out = maskFields(out, j.op.SecretFields)
	e.transit(j, venue.StatusComplete, func(n *venue.Job) { n.Output = out })
}

// checkOutput bounds the output and compacts it, which also proves it is
// JSON and keeps records on one line (as SSE data lines need).
func (e *Engine) checkOutput(out json.RawMessage) (json.RawMessage, error) {
	if len(out) > e.cfg.MaxOutputSize {
		return nil, venue.Errorf(venue.ETOOLARGE, "Output of %d bytes exceeds the venue's limit of %d bytes", len(out), e.cfg.MaxOutputSize)
	}
	if !utf8.Valid(out) {
		// JSON exchanged between systems is UTF-8 (RFC 8259): strict readers
		// of the record would fail on it, as the venue refuses it as input.
		return nil, venue.Errorf(venue.EINTERNAL, "Operation returned output that is not UTF-8 text, as JSON must be")
	}
	if jsonscan.Compacted(out) {
		return out, nil
	}
	if jsonscan.Deeper(out, maxOutputDepth) {
		return nil, venue.Errorf(venue.EINTERNAL, "Operation returned output nested more than %d levels deep, more than the venue keeps", maxOutputDepth)
	}
	var buf bytes.Buffer
	if len(out) == 0 || json.Compact(&buf, out) != nil {
		return nil, venue.Errorf(venue.EINTERNAL, "Operation returned output that is not JSON")
	}
	return buf.Bytes(), nil
}

// maxDepth bounds how deep the JSON the venue keeps (inputs, outputs,
// replies, lattice values, asset metadata) may nest. Every reader wraps
// what it reads (a record around an output, {"exists", "value"} around a
// value, a path's maps around a row), and encoding/json refuses text past
// 10000 levels: an output of exactly 10000 was kept, then broke every
// read of its record and of the caller's j/ with a 500. A thousand levels
// is far past any real document and leaves every wrapper room.
const maxDepth = 1000

// maxOutputDepth bounds outputs, which may wrap what the venue keeps: a
// read of a whole namespace answers a value maxDepth deep (see
// refuseDeepAt) inside {"exists", "value"}. A read answers nothing deeper
// than an output may be (see refuseDeepRead), so the read operations and
// the /values endpoints agree.
const maxOutputDepth = maxDepth + 8

// refuseDeep refuses JSON nested past maxDepth, naming what it is.
func refuseDeep(what string, b []byte) error {
	if jsonscan.Deeper(b, maxDepth) {
		return venue.Errorf(venue.EINVALID, "%s nests more than %d levels deep, more than the venue keeps", what, maxDepth)
	}
	return nil
}

// compactJSON compacts a message for a record (records are one line: SSE
// sends each as one data line); a message that is not JSON becomes a string.
func compactJSON(msg json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, msg) != nil {
		return venue.AppendString(nil, string(msg))
	}
	return buf.Bytes()
}

// outcome is the terminal status of an execution that returned err. A
// capability denied, to a signed-in caller (EFORBIDDEN) or to the
// anonymous one (EUNAUTHORIZED), rejects the job: what the job was for was
// refused on policy and never took effect, which is the spec's REJECTED,
// wherever the refusal came from (the engine, a native operation, a Wasm
// guest passing on its host call's refusal). Anything else fails it.
func outcome(err error) venue.JobStatus {
	switch venue.ErrorCode(err) {
	case venue.EFORBIDDEN, venue.EUNAUTHORIZED:
		return venue.StatusRejected
	}
	return venue.StatusFailed
}

// failure words why an execution failed: the deadline or shutdown if that
// is what stopped it, else what the executor said.
func failure(ctx context.Context, err error, timeout string) string {
	switch context.Cause(ctx) {
	case errTimeout:
		return fmt.Sprintf("Job timed out after %s", timeout)
	case errShutdown:
		return "The venue shut down while the job was running"
	}
	var ve *venue.Error
	if errors.As(err, &ve) {
		return ve.Message
	}
	return err.Error()
}

// acquireSlots waits for a slot of j's caller (see callerSlots), then, for
// uploaded code, for one of the uploaded share (uploadedWorkers, handed out
// fairly among callers: fairPool), then for a worker slot.
func (e *Engine) acquireSlots(ctx context.Context, j *job) error {
	byCaller, uploaded := e.callers.applies(j), e.runsUploadedCode(j)
	if byCaller {
		if err := e.callers.acquire(ctx, j.caller.DID); err != nil {
			return err
		}
	}
	if uploaded {
		if err := e.uploaded.acquire(ctx, j.caller.DID); err != nil {
			e.releaseSlots(j, byCaller, false)
			return err
		}
	}
	if err := e.pool.acquire(ctx); err != nil {
		e.releaseSlots(j, byCaller, uploaded)
		return err
	}
	return nil
}

// releaseSlots gives back the caller's and the uploaded code's slots.
func (e *Engine) releaseSlots(j *job, byCaller, uploaded bool) {
	if uploaded {
		e.uploaded.release(j.caller.DID)
	}
	if byCaller {
		e.callers.release(j.caller.DID)
	}
}

// runsUploadedCode reports whether j runs code a user uploaded: an
// operation of an adapter family whose modules the venue checks (wasm).
func (e *Engine) runsUploadedCode(j *job) bool { return e.uploadedCode(j.op) }

// uploadedCode reports whether op's code is a user's: its adapter's family
// ("wasm", whatever follows a colon, as in "wasm:upper", which runs on the
// same executor) is one whose modules the venue checks.
func (e *Engine) uploadedCode(op *venue.Operation) bool { return e.checkers[op.Adapter] != nil }

// uploadedWorkers is how many of n worker slots uploaded code may hold:
// all but a quarter (at least one, when there are two or more), which stay
// for the venue's own operations. A guest that loops runs until its job's
// deadline (ten minutes by default), and anyone can make identities to
// pass the per-caller bound: without a reserve, a few dozen looping jobs
// would keep every job of everyone waiting, the venue's status and echo
// included.
func uploadedWorkers(n int) int {
	if n < 2 {
		return max(n, 1)
	}
	return n - max(1, n/4)
}

// uploadedSlots is how many jobs may run uploaded code at once: what the
// config asks, within the share uploadedWorkers leaves the venue's own.
func (c *Config) uploadedSlots() int {
	n := uploadedWorkers(c.Workers)
	if c.UploadedWorkers > 0 {
		n = min(n, c.UploadedWorkers)
	}
	return n
}

// releaseSlot gives the worker slot, and the caller's and the uploaded
// code's, back if this execution holds them.
func (env *Env) releaseSlot() {
	if env.held {
		env.held = false
		env.e.pool.release()
		env.e.releaseSlots(env.j, env.e.callers.applies(env.j), env.e.runsUploadedCode(env.j))
	}
}

// ask implements Env.Ask. Once it has asked, the job waits for a worker
// slot before it takes a reply, and takes it in one step with its return
// to STARTED (takeReply): a reply is never out of the queue while the job
// still shows the question, where a pause or cancel would lose it.
func (e *Engine) ask(ctx context.Context, env *Env, status venue.JobStatus, question json.RawMessage) (json.RawMessage, error) {
	j := env.j
	asked := false
	for {
		if asked && !env.held {
			if err := e.acquireSlots(ctx, j); err != nil {
				return nil, err
			}
			env.held = true
		}
		msg, err := e.takeReply(ctx, env, asked)
		if err != nil || msg != nil {
			return msg, err
		}
		if !asked {
			if err := e.moveRun(j, env.run, status, compactJSON(question)); err != nil {
				return nil, err
			}
			asked = true
		}
		env.releaseSlot()
		select {
		case <-j.inbox:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// takeReply takes the oldest reply queued for env's job and, if the job
// had asked for it, moves the job back to STARTED, under the job's lock:
// a pause or cancel either comes first, and the reply stays queued for the
// run a resume starts, or finds the job gone on with it.
func (e *Engine) takeReply(ctx context.Context, env *Env, asked bool) (json.RawMessage, error) {
	j := env.j
	j.mu.Lock()
	defer j.mu.Unlock()
	if st := j.rec.Status; j.run != env.run || st.Terminal() || st == venue.StatusPaused {
		return nil, errPaused
	}
	msg, err := e.store.TakeJobMessage(ctx, j.id)
	if err != nil || msg == nil || !asked {
		return msg, err
	}
	_, err = e.transit(j, venue.StatusStarted, func(n *venue.Job) { n.Message = nil })
	return msg, err
}

// moveRun transits j on behalf of execution run, if that run is current and
// the job is executing (not paused or finished).
func (e *Engine) moveRun(j *job, run int, s venue.JobStatus, msg json.RawMessage) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.rec.Status
	if j.run != run || st.Terminal() || st == venue.StatusPaused {
		return errPaused
	}
	_, err := e.transit(j, s, func(n *venue.Job) { n.Message = msg })
	if err == nil && asking(s) {
		j.callerHolds()
	}
	return err
}
