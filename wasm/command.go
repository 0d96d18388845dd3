package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// runCommand runs a WASI command module on input in a fresh instance: the
// input is its stdin, its stdout the output, and a non-zero exit fails the
// job with its stderr. The instance counts against MaxInstances while it
// runs.
func (h *Host) runCommand(ctx context.Context, m *Module, op string, input []byte, env *runtime.Env) (json.RawMessage, error) {
	if _, err := h.pools.take(ctx, poolKey{}); err != nil {
		return nil, err
	}
	defer h.pools.release()
	stdout, stderr := &capture{limit: h.cfg.MaxOutput}, &capture{limit: maxStderr}
	// Output past the limit fails the job at once: a command writing on
	// without end would otherwise run, and hold a core, until its deadline.
	ctx, overflow := context.WithCancelCause(ctx)
	defer overflow(nil)
	stdout.full = func() {
		overflow(venue.Errorf(venue.ETOOLARGE, "output of %d bytes or more exceeds the limit of %d bytes", stdout.total, h.cfg.MaxOutput))
	}
	c := &callState{gate: h.gate, always: true}
	c.begin(ctx, env, op)
	ctx = withCall(ctx, c)
	mod, err := h.instantiate(ctx, m, h.configFor(c, stderr).WithStdin(bytes.NewReader(input)).WithStdout(stdout))
	if err != nil {
		return nil, err
	}
	defer mod.Close(context.Background())
	if err := start(ctx, c, mod, m); err != nil {
		var memSize uint32
		if mem := mod.Memory(); mem != nil {
			memSize = mem.Size()
		}
		return nil, h.commandFailure(ctx, c, err, stderr.String(), memSize)
	}
	if ctx.Err() != nil { // it ended after its deadline: a late answer is no answer
		return nil, context.Cause(ctx)
	}
	if stdout.over() {
		return nil, venue.Errorf(venue.ETOOLARGE, "output of %d bytes exceeds the limit of %d bytes", stdout.total, h.cfg.MaxOutput)
	}
	logStderr(ctx, c, stderr)
	out := stdout.buf.Bytes()
	switch {
	case json.Valid(out):
		return out, nil
	case len(bytes.TrimSpace(out)) == 0:
		return nil, venue.Errorf(venue.EINTERNAL, "Operation wrote nothing on stdout: a command writes its output there, one JSON value")
	}
	return nil, notJSON(out)
}

// logStderr sends what a call that did not fail wrote on stderr (its
// first 4 KiB) to the job's log, as venue.log would: a guest's debug
// prints, which would otherwise vanish without a trace. A failed call's
// stderr is its error instead.
func logStderr(ctx context.Context, c *callState, stderr *capture) {
	if c.logEnv == nil || stderr.total == 0 {
		return
	}
	if s := stderr.String(); s != "" {
		c.logEnv.Log(ctx, slog.LevelInfo, "stderr: "+s)
	}
}

// start runs a command's _start, stopped if ctx ends first: returning or
// exiting with code 0 is success.
func start(ctx context.Context, c *callState, mod api.Module, m *Module) error {
	if !c.enterGuest() {
		return context.Cause(ctx)
	}
	defer c.leaveGuest()
	err := stackError(mod.ExportedFunction(exportStart).CallWithStack(ctx, nil), depthOf(mod), m.interpreted)
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		return nil
	}
	return err
}

// commandFailure words a command's failure: a non-zero exit is the
// command's own verdict, with its stderr (or its exit code) as the message.
func (h *Host) commandFailure(ctx context.Context, c *callState, err error, stderr string, memSize uint32) error {
	var exit *sys.ExitError
	if !errors.As(err, &exit) || ctx.Err() != nil || outOfMemory(stderr, memSize, h.cfg.memoryLimit()) {
		return h.failure(ctx, err, stderr, memSize)
	}
	if stderr == "" {
		stderr = fmt.Sprintf("the operation exited with code %d", exit.ExitCode())
	}
	return c.guestFailure(stderr)
}
