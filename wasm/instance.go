package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
	"github.com/gridvenue/venue/runtime"
)

// instance is a live reactor instance. It serves one call at a time and
// holds nothing of a caller between calls except what the guest itself
// keeps (which is why an uploaded module's pools are per caller).
type instance struct {
	key       poolKey
	host      *Host
	mod       api.Module
	mem       api.Memory
	alloc     api.Function
	run       api.Function
	depth     api.MutableGlobal // the weight of the guest's call stack (interrupt.go), zeroed before each call
	buf       uint32            // the buffer venue_alloc last returned
	bufCap    uint32            // its size
	stack     [4]uint64         // venue_run's parameters, then its result
	stderr    capture           // the current call's stderr, for crash messages
	call      callState         // reused by every call
	idleSince time.Time
	broken    bool // unfit for another call: closed on return to the pool
}

// errBit marks venue_run's result length as an error message's.
const errBit = 1 << 31

// newInstance instantiates key's module, then runs _initialize if it has
// one. A guest that calls the host from _initialize gets no job to act for;
// its log lines go to the log of env's job, which made the instance, and
// count against its caller's budget.
func (h *Host) newInstance(ctx context.Context, key poolKey, env *runtime.Env) (*instance, error) {
	in := &instance{key: key, host: h}
	in.call.gate, in.call.always = h.gate, key.uploaded
	in.call.beginInit(ctx, env)
	defer in.call.end()
	in.stderr.limit = maxStderr
	ctx = withCall(ctx, &in.call)
	mod, err := h.instantiate(ctx, key.mod, h.configFor(&in.call, &in.stderr))
	if err != nil {
		return nil, err
	}
	in.mod, in.mem, in.depth = mod, mod.Memory(), depthOf(mod)
	in.alloc, in.run = mod.ExportedFunction(exportAlloc), mod.ExportedFunction(exportRun)
	if key.mod.init {
		if err := in.callGuest(ctx, mod.ExportedFunction(exportInit), nil); err != nil || in.broken {
			in.close()
			return nil, initFailure(h.failure(ctx, err, in.stderr.String(), in.mem.Size()))
		}
	}
	return in, nil
}

// initFailure says that a crash happened in _initialize, before the call
// the job made: a C guest's trap there ("wasm error: unreachable", from a
// constructor) reads as the operation's own otherwise, and every call of
// the module fails alike. A deadline or a cancellation is left as it is.
func initFailure(err error) error {
	const prefix = "operation crashed: "
	msg := venue.ErrorMessage(err)
	if venue.ErrorCode(err) != venue.EINTERNAL || !strings.HasPrefix(msg, prefix) {
		return err
	}
	return venue.Errorf(venue.EINTERNAL, "operation crashed in _initialize, which runs once before an instance's first call (a constructor or package initializer): %s", strings.TrimPrefix(msg, prefix))
}

// depthOf returns the global that weighs mod's call stack.
func depthOf(mod api.Module) api.MutableGlobal {
	return mod.ExportedGlobal(depthExport).(api.MutableGlobal)
}

// errNoTurn is callGuest's error when the call ended before its guest
// code could run; the caller's context says why.
var errNoTurn = errors.New("the call ended while it waited for a processor")

// errCallDepth is a guest's trap on its call stack's bound (interrupt.go).
var errCallDepth = errors.New("calls nested deeper than the venue allows")

// errInterpretedDepth is a guest's trap on the interpreter's bound on
// nested calls (tiers.go).
var errInterpretedDepth = errors.New("calls nested deeper than the interpreter allows")

// stackError returns errCallDepth, wrapping err, if the guest's trap was
// on its call stack's bound: its depth is then past it; or
// errInterpretedDepth if it was on the interpreter's.
func stackError(err error, depth api.Global, interpreted bool) error {
	switch {
	case err == nil:
		return nil
	case uint32(depth.Get()) > maxStackSlots:
		return fmt.Errorf("%w (%v)", errCallDepth, err)
	case interpreted && strings.HasPrefix(err.Error(), "wasm error: stack overflow"):
		return fmt.Errorf("%w (%v)", errInterpretedDepth, err)
	}
	return err
}

// callGuest calls fn with stack under ctx: when ctx ends first, the guest is
// stopped at its next check. An instance whose context ended around the
// call may have been stopped, or be stopped any moment, so it serves no
// other call. If ctx ends while the call waits for its turn on a
// processor (cpugate.go), no guest code ran: it returns errNoTurn, and the
// instance is as fit as it was.
func (in *instance) callGuest(ctx context.Context, fn api.Function, stack []uint64) error {
	if !in.call.enterGuest() {
		return errNoTurn
	}
	defer in.call.leaveGuest()
	in.depth.Set(0)
	err := stackError(fn.CallWithStack(ctx, stack), in.depth, in.key.mod.interpreted)
	if ctx.Err() != nil {
		in.broken = true
	}
	return err
}

// instantiate makes an instance of m without running any of its code: the
// caller runs _initialize or _start, and words their failures.
func (h *Host) instantiate(ctx context.Context, m *Module, cfg wazero.ModuleConfig) (api.Module, error) {
	mod, err := m.box.rt.InstantiateModule(ctx, m.compiled, cfg.WithStartFunctions())
	if err != nil {
		return nil, h.failure(ctx, err, "", 0)
	}
	return mod, nil
}

// invoke runs op on input. Any failure but the guest's own error report
// marks the instance broken.
func (in *instance) invoke(ctx context.Context, op string, input []byte, env *runtime.Env) (json.RawMessage, error) {
	in.call.begin(ctx, env, op)
	in.stderr.Reset()
	defer in.call.end()
	ctx = withCall(ctx, &in.call)
	ptr, err := in.writeArgs(ctx, op, input)
	if err == errNoTurn {
		return nil, context.Cause(ctx)
	}
	if err != nil {
		in.broken = true
		return nil, err
	}
	in.stack = [4]uint64{uint64(ptr), uint64(len(op)), uint64(ptr) + uint64(len(op)), uint64(len(input))}
	if err := in.callGuest(ctx, in.run, in.stack[:]); err != nil {
		in.broken = err != errNoTurn
		return nil, in.host.failure(ctx, err, in.stderr.String(), in.mem.Size())
	}
	logStderr(ctx, &in.call, &in.stderr)
	out, err := in.output(in.stack[0])
	if uint64(in.mem.Size()) > in.host.cfg.memoryLimit()/2 {
		in.broken = true // retire an instance near its limit: it would fail its next caller
	}
	return out, err
}

// writeArgs copies the op name and the input into the guest's buffer,
// asking venue_alloc for a bigger one only when they outgrow it.
func (in *instance) writeArgs(ctx context.Context, op string, input []byte) (uint32, error) {
	need := uint64(len(op)) + uint64(len(input))
	if need >= in.host.cfg.memoryLimit() {
		return 0, venue.Errorf(venue.ETOOLARGE, "input of %d bytes exceeds the operation's memory limit", len(input))
	}
	if need > uint64(in.bufCap) {
		if err := in.grow(ctx, need); err != nil {
			return 0, err
		}
	}
	in.mem.WriteString(in.buf, op)
	in.mem.Write(in.buf+uint32(len(op)), input)
	return in.buf, nil
}

// grow asks venue_alloc for a buffer of at least need bytes (less than
// 4 GiB), rounded up to a power of two so that growing inputs rarely ask
// again.
func (in *instance) grow(ctx context.Context, need uint64) error {
	size := uint64(minAllocSize)
	for size < need {
		size <<= 1
	}
	if size > math.MaxUint32 {
		size = need
	}
	in.stack[0] = size
	if err := in.callGuest(ctx, in.alloc, in.stack[:]); err == errNoTurn {
		return err
	} else if err != nil {
		return in.host.failure(ctx, err, in.stderr.String(), in.mem.Size())
	}
	ptr := uint32(in.stack[0])
	if ptr == 0 || !inside(in.mem, ptr, size) {
		return crashed("venue_alloc(%d) returned %#x, not a buffer inside the module's memory", size, ptr)
	}
	in.buf, in.bufCap = ptr, uint32(size)
	return nil
}

// output reads venue_run's result r = ptr<<32 | len: the output, copied out
// of the guest, or the guest's error message.
func (in *instance) output(r uint64) (json.RawMessage, error) {
	ptr, n := uint32(r>>32), uint32(r)
	if n&errBit != 0 {
		return nil, in.guestError(ptr, n&^errBit)
	}
	if limit := in.host.cfg.MaxOutput; uint64(n) > uint64(limit) {
		in.broken = true // it holds at least that much memory
		return nil, venue.Errorf(venue.ETOOLARGE, "output of %d bytes exceeds the limit of %d bytes", n, limit)
	}
	view, ok := in.mem.Read(ptr, n)
	if !ok {
		in.broken = true
		return nil, crashed("venue_run returned an output (%d bytes at %#x) outside the module's memory", n, ptr)
	}
	if !jsonscan.Compacted(view) && !json.Valid(view) {
		return nil, notJSON(view)
	}
	return append(json.RawMessage(nil), view...), nil
}

// guestError is the job's error for the message the guest reported.
func (in *instance) guestError(ptr, n uint32) error {
	view, ok := in.mem.Read(ptr, min(n, maxErrorText))
	if !ok || !inside(in.mem, ptr, uint64(n)) {
		in.broken = true
		return crashed("venue_run returned an error message (%d bytes at %#x) outside the module's memory", n, ptr)
	}
	msg := strings.ToValidUTF8(string(view), "\uFFFD")
	if n > maxErrorText {
		msg += "…"
	}
	if strings.TrimSpace(msg) == "" {
		msg = "the operation failed without saying why"
	}
	return in.call.guestFailure(msg)
}

func notJSON(b []byte) error {
	if jsonscan.Deeper(b, jsonscan.MaxNesting) {
		return venue.Errorf(venue.EINTERNAL, "Operation returned output nested more than %d levels deep, which JSON readers refuse", jsonscan.MaxNesting)
	}
	return venue.Errorf(venue.EINTERNAL, "Operation returned output that is not JSON (%d bytes: %q)", len(b), b[:min(len(b), 100)])
}

func (in *instance) close() {
	if in.mod != nil {
		in.mod.Close(context.Background())
	}
}
