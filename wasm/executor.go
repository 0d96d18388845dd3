package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"sync"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

var (
	_ runtime.Executor      = (*builtin)(nil)
	_ runtime.Executor      = (*uploaded)(nil)
	_ runtime.ModuleChecker = (*Host)(nil)
)

// Builtin returns an executor for the venue's own operations, all of them
// in one trusted reactor module: it passes each operation's name
// ("core:read") to venue_run. The module starts compiling now, in the
// background, so the first call waits at most for the rest of the compile.
// Its instances serve any caller: they are trusted to keep nothing between
// calls.
// Returns ETOOLARGE for a module over MaxModuleSize; a module that does not
// compile or is no reactor fails every call with EINVALID.
func (h *Host) Builtin(module []byte) (runtime.Executor, error) {
	if len(module) > h.cfg.MaxModuleSize {
		return nil, tooLarge(len(module), h.cfg.MaxModuleSize)
	}
	c, err := h.compiling(sha256.Sum256(module), module, true, false)
	if err != nil {
		return nil, err
	}
	return &builtin{h: h, c: c}, nil
}

type builtin struct {
	h *Host
	c *compiling
}

// Execute runs op in a pooled instance of the venue's module.
// Once compiled, the module is never closed (it is pinned), so a call
// needs no use of it; until then a call may run interpreted (tiers.go).
func (b *builtin) Execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var m *Module
	if isDone(b.c) {
		if b.c.err != nil {
			return nil, b.c.err
		}
		m = b.c.mod
	} else {
		var err error
		if m, err = b.h.ready(ctx, b.c, false, true); err != nil {
			return nil, err
		}
		defer m.done()
	}
	if m.abi != Reactor {
		return nil, venue.Errorf(venue.EINVALID, "the venue's own operations must be a reactor module, not a %s", m.abi)
	}
	return b.h.runReactor(ctx, poolKey{mod: m}, op.Name, input, env)
}

// Uploaded returns an executor for users' modules; load returns the module
// of op (the content its metadata names). load is called once per
// operation asset: an asset's id hashes metadata that names its content by
// SHA-256, so the same id always means the same module. A reactor's
// instances are pooled per module and caller, and never serve another
// caller; a command gets a fresh instance per call.
func (h *Host) Uploaded(load func(ctx context.Context, env *runtime.Env, op *venue.Operation) ([]byte, error)) runtime.Executor {
	return &uploaded{h: h, load: load, byAsset: map[venue.AssetID]*Module{}}
}

type uploaded struct {
	h       *Host
	load    func(ctx context.Context, env *runtime.Env, op *venue.Operation) ([]byte, error)
	mu      sync.Mutex
	byAsset map[venue.AssetID]*Module // a memo of load and Compile, cleared when it grows past maxAssetMemo
}

const maxAssetMemo = 4096

// Execute runs op's module on input as env's caller.
func (u *uploaded) Execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	m, err := u.module(ctx, env, op)
	if err != nil {
		return nil, err
	}
	defer m.done()
	if m.abi == Command {
		return u.h.runCommand(ctx, m, op.Name, input, env)
	}
	return u.h.runReactor(ctx, poolKey{mod: m, caller: callerOf(env), uploaded: true}, op.Name, input, env)
}

// module returns op's module in use (Module.use): the one remembered for
// op's asset, unless it has been evicted since, or else the one load's
// bytes compile to.
func (u *uploaded) module(ctx context.Context, env *runtime.Env, op *venue.Operation) (*Module, error) {
	u.mu.Lock()
	m := u.byAsset[op.Asset]
	if next := m.successor(); next != nil {
		m, u.byAsset[op.Asset] = next, next
	}
	u.mu.Unlock()
	if m != nil && !m.evicted.Load() && m.use() {
		u.h.modules.touch(m.entry)
		return m, nil
	}
	b, err := u.load(ctx, env, op)
	if err != nil {
		return nil, err
	}
	if m, err = u.h.acquire(ctx, b, true); err != nil {
		return nil, err
	}
	if op.Asset != (venue.AssetID{}) {
		u.mu.Lock()
		if len(u.byAsset) >= maxAssetMemo {
			clear(u.byAsset)
		}
		u.byAsset[op.Asset] = m
		u.mu.Unlock()
	}
	return m, nil
}

// callerOf is the DID an uploaded module's pool is keyed by. A nil env (a
// benchmark calling the executor directly) pools under "".
func callerOf(env *runtime.Env) string {
	if env == nil {
		return ""
	}
	return env.Caller().DID
}

// runReactor runs op in an instance from key's pool, made if none is idle.
func (h *Host) runReactor(ctx context.Context, key poolKey, op string, input []byte, env *runtime.Env) (json.RawMessage, error) {
	in, err := h.pools.take(ctx, key)
	if err != nil {
		return nil, err
	}
	if in == nil {
		if in, err = h.newInstance(ctx, key, env); err != nil {
			h.pools.release()
			return nil, err
		}
	}
	out, err := in.invoke(ctx, op, input, env)
	if err == nil && ctx.Err() != nil { // it ended after its deadline: a late answer is no answer
		out, err = nil, context.Cause(ctx)
	}
	if uint64(in.mem.Size()) > h.cfg.memoryLimit()/2 {
		// A heap grown that far stays that large, and the next call would
		// start with what is left: it is closed rather than kept.
		in.broken = true
	}
	h.pools.put(in)
	return out, err
}
