package wasm

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/gridvenue/venue/runtime"
)

// callState is what the venue host functions know of the call in progress
// on an instance: the job's Env and the result waiting to be collected. It
// travels in the context wazero hands the host functions, so one host
// module serves every instance and nothing outlives the call.
type callState struct {
	env     *runtime.Env    // nil while no job runs (_initialize, benchmarks)
	logEnv  *runtime.Env    // the job whose log and budget venue.log writes to: env, or during _initialize the job that made the instance
	op      string          // the operation running ("core:read"), for wording its input's errors
	done    <-chan struct{} // the call's context's Done
	pending []byte          // the last venue.call's result or error message
	hasMore bool            // pending awaits venue.result
	logs    int             // log messages this call
	refused []refusal       // the venue's latest refusals of this call's host calls (see guestFailure)
	gate    *cpuGate        // the processors guest code takes turns on (cpugate.go); nil for none
	always  bool            // the instance runs uploaded code, whose every call takes turns
	gated   bool            // the call takes turns: always, or once the venue's own code has computed a slice
	held    bool            // holds one of gate's tokens
	since   time.Time       // when it took it; while not gated, the call's first $refuel
}

type callKey struct{}

func withCall(ctx context.Context, c *callState) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callOf(ctx context.Context) *callState {
	c, _ := ctx.Value(callKey{}).(*callState)
	return c
}

func (c *callState) begin(ctx context.Context, env *runtime.Env, op string) {
	c.env, c.op, c.done, c.pending, c.hasMore, c.logs, c.refused = env, op, ctx.Done(), nil, false, 0, c.refused[:0]
	c.gated, c.since = c.always, time.Time{}
	c.logEnv = env
}

// beginInit begins _initialize, made to run by the job of env (nil for
// none): no job runs, but what the guest logs goes to that job's log,
// within its caller's budget, as the instance serves that caller only.
func (c *callState) beginInit(ctx context.Context, env *runtime.Env) {
	c.begin(ctx, nil, "")
	c.logEnv = env
}

func (c *callState) end() { c.begin(context.Background(), nil, "") }

// ended reports whether the call's context has ended.
func (c *callState) ended() bool { return hasClosed(c.done) }

// sleep is the guest's clock sleep (WASI poll_oneoff): ns, or until the
// call's context ends, which traps the guest. Returning early would not do:
// a guest (Go's scheduler) that finds the time not yet come sleeps again,
// and a sleep reaches no interrupt check.
func (c *callState) sleep(ns int64) {
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	c.leaveGuest()
	select {
	case <-t.C:
	case <-c.done:
		trap("the call ended while the guest slept")
	}
	c.reenterGuest()
}

// hostTrap is the panic with which a host function traps the guest that
// misused it: wazero turns it into the error of the guest's call, and the
// instance is discarded.
type hostTrap struct{ msg string }

func (t *hostTrap) Error() string { return t.msg }

func trap(format string, args ...any) {
	panic(&hostTrap{msg: fmt.Sprintf(format, args...)})
}

// instantiateVenue builds the host module "venue" of doc.go.
func (h *Host) instantiateVenue(ctx context.Context, rt wazero.Runtime) (api.Module, error) {
	b := rt.NewHostModuleBuilder(hostModule)
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(h.hostCall), []api.ValueType{i32, i32}, []api.ValueType{i64}).
		WithParameterNames("req_ptr", "req_len").Export("call")
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(h.hostResult), []api.ValueType{i32, i32}, []api.ValueType{i32}).
		WithParameterNames("ptr", "len").Export("result")
	b.NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(h.hostLog), []api.ValueType{i32, i32, i32}, nil).
		WithParameterNames("level", "ptr", "len").Export("log")
	return b.Instantiate(ctx)
}

// hostCall is venue.call(req_ptr, req_len) -> i64: it performs the request
// and returns its result's length, or minus its error message's.
func (h *Host) hostCall(ctx context.Context, m api.Module, stack []uint64) {
	c := callOf(ctx)
	if c == nil {
		trap("venue.call: no operation is running")
	}
	req, err := readGuest(m.Memory(), uint32(stack[0]), uint32(stack[1]), maxHostIO)
	if err != nil {
		trap("venue.call: the request's %v", err)
	}
	c.leaveGuest() // a host call may wait, on the network or the store
	res, err := c.do(ctx, req)
	c.reenterGuest()
	n := int64(len(res))
	if err != nil {
		res = []byte(err.Error())
		n = -int64(len(res))
	}
	c.pending, c.hasMore = res, true
	stack[0] = uint64(n)
}

// hostResult is venue.result(ptr, len) -> i32: it copies the pending result
// into the guest's buffer and returns its length. Collecting a result that
// is not pending, or into a buffer too small for it, traps: both are bugs
// of the guest's library that would otherwise lose data silently.
func (h *Host) hostResult(ctx context.Context, m api.Module, stack []uint64) {
	c := callOf(ctx)
	if c == nil || !c.hasMore {
		trap("venue.result: no result is pending (each venue.call's result is collected once)")
	}
	ptr, n := uint32(stack[0]), uint32(stack[1])
	if uint64(n) < uint64(len(c.pending)) {
		trap("venue.result: the buffer of %d bytes is too small for the pending %d bytes", n, len(c.pending))
	}
	if _, err := readGuest(m.Memory(), ptr, n, math.MaxUint32); err != nil {
		trap("venue.result: the buffer's %v", err) // all of it must be the guest's
	}
	writeGuest(m.Memory(), ptr, c.pending)
	stack[0] = uint64(len(c.pending))
	c.pending, c.hasMore = nil, false
}

// hostLog is venue.log(level, ptr, len): the text goes to the job's log,
// bounded in size and in number per call.
func (h *Host) hostLog(ctx context.Context, m api.Module, stack []uint64) {
	text, err := readGuest(m.Memory(), uint32(stack[1]), uint32(stack[2]), maxHostIO)
	if err != nil {
		trap("venue.log: the message's %v", err)
	}
	c := callOf(ctx)
	if c != nil {
		if c.logs++; c.logs > maxLogsPerCall {
			return
		}
	}
	msg := strings.ToValidUTF8(string(text[:min(len(text), maxLogText)]), "")
	if len(text) > maxLogText {
		msg += "…"
	}
	level := logLevel(int32(stack[0]))
	if c != nil && c.logEnv != nil {
		c.logEnv.Log(ctx, level, msg)
		return
	}
	h.log.Log(ctx, level, msg)
}

// logLevel maps the ABI's levels 0 debug, 1 info, 2 warn, 3 error to slog,
// clamping others to the nearest.
func logLevel(l int32) slog.Level {
	switch {
	case l <= 0:
		return slog.LevelDebug
	case l == 1:
		return slog.LevelInfo
	case l == 2:
		return slog.LevelWarn
	}
	return slog.LevelError
}
