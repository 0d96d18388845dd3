package wasm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	venue "github.com/gridvenue/venue"
)

// Module is a compiled module whose ABI the host has checked.
type Module struct {
	hash        [32]byte // of the bytes given, before instrument
	box         *sandbox // the runtime it was compiled in, and its instances run in
	compiled    wazero.CompiledModule
	abi         ABI
	init        bool        // exports _initialize, run once per instance
	entry       *compiling  // its place in the compile cache
	interpreted bool        // compiled for the interpreter (tiers.go)
	evicted     atomic.Bool // dropped from the cache: its code closes once no call uses it
	mu          sync.Mutex
	active      int  // calls using it
	closed      bool // its compiled code is closed
}

// Hash returns the hex SHA-256 of the module's bytes.
func (m *Module) Hash() string { return hex.EncodeToString(m.hash[:]) }

// ABI returns how the host runs the module.
func (m *Module) ABI() ABI { return m.abi }

// use marks a call of m as begun, so that its compiled code stays open
// for the call's instances; false if it is closed already (evicted and
// unused). done ends the call.
func (m *Module) use() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.active++
	return true
}

// done ends a call begun with use.
func (m *Module) done() {
	m.mu.Lock()
	m.active--
	m.closeIfUnused()
}

func (m *Module) busy() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active > 0
}

// evict marks m dropped from the cache; its code closes when unused.
func (m *Module) evict() {
	m.evicted.Store(true)
	m.mu.Lock()
	m.closeIfUnused()
}

// closeIfUnused closes the compiled code of an evicted module no call
// uses. It is called with mu held, and unlocks it.
func (m *Module) closeIfUnused() {
	closing := m.evicted.Load() && m.active == 0 && !m.closed
	m.closed = m.closed || closing
	m.mu.Unlock()
	if closing {
		m.compiled.Close(context.Background())
	}
}

// cacheKey names a compiled module: its bytes' hash.
type cacheKey struct {
	sum [32]byte
}

// compiling is one entry of the compile cache: done closes when mod or err
// is set.
type compiling struct {
	key     cacheKey
	done    chan struct{}
	mod     *Module
	err     error
	interp  *Module       // interpreted, serving calls until mod is done (tiers.go); guarded by the cache's mu
	tried   chan struct{} // closes when the interpreter's compile has ended, interp set or not
	begun   atomic.Bool   // the interpreter's compile has begun
	pinned  bool          // the venue's own module, never evicted; guarded by the cache's mu
	waiting int           // callers waiting to use it, which keeps it; guarded by the cache's mu
	used    atomic.Int64  // the cache's clock at its last use
}

// compileCache holds the modules compiled, by content hash. Compiling costs
// about a second for a 3 MB Go module, so it happens once per module, and a
// compile that fails is remembered too. Beyond MaxModules entries the least
// recently used idle one goes (a compiled Go module holds some 15-20 MB);
// entries in use or awaited stay, so the bound is soft.
type compileCache struct {
	mu      sync.Mutex
	byKey   map[cacheKey]*compiling
	max     int
	clock   atomic.Int64
	closed  bool
	running int    // compiles under way in the runtime
	release func() // set by a Close that found compiles under way: the last to end calls it
}

func (cc *compileCache) touch(c *compiling) { c.used.Store(cc.clock.Add(1)) }

// Compile compiles wasm, or returns the module compiled from the same bytes
// before, and checks its imports and ABI. Concurrent compiles of the same
// bytes compile once; a caller whose ctx ends stops waiting but the compile
// carries on for the next.
// Returns ETOOLARGE for a module over MaxModuleSize and EINVALID for one that
// does not compile or that speaks neither ABI of doc.go.
// Compile waits for the compiled code, not the interpreted (tiers.go).
func (h *Host) Compile(ctx context.Context, wasm []byte) (*Module, error) {
	m, err := h.acquire(ctx, wasm, false)
	if m != nil {
		m.done()
	}
	return m, err
}

// tooLarge refuses a module over MaxModuleSize.
func tooLarge(size, limit int) error {
	return venue.Errorf(venue.ETOOLARGE, "module of %d bytes exceeds the limit of %d bytes", size, limit)
}

// CheckModule compiles module, checks its ABI and instantiates it once,
// so the engine can refuse an upload the venue could never run
// (runtime.ModuleChecker). Instantiating runs none of the guest's code (a
// start section is refused, and _initialize or _start is not called); it
// lays out the memory and the tables, where a data or element segment
// that does not fit fails every call.
func (h *Host) CheckModule(ctx context.Context, module []byte) error {
	m, err := h.acquire(ctx, module, true)
	if err != nil {
		return err
	}
	defer m.done()
	var call callState
	var stderr capture
	mod, err := m.box.rt.InstantiateModule(ctx, m.compiled, h.configFor(&call, &stderr).WithName("").WithStartFunctions())
	if err != nil {
		return venue.Errorf(venue.EINVALID, "module does not instantiate: %s", strings.TrimPrefix(err.Error(), "module[] "))
	}
	return mod.Close(ctx)
}

// acquire is Compile for a call that will run the module: it returns it in
// use (see Module.use), which the caller ends with done; if interpreted,
// the interpreted module while the compile runs (tiers.go).
func (h *Host) acquire(ctx context.Context, wasm []byte, interpreted bool) (*Module, error) {
	if len(wasm) > h.cfg.MaxModuleSize {
		return nil, tooLarge(len(wasm), h.cfg.MaxModuleSize)
	}
	c, err := h.compiling(sha256.Sum256(wasm), wasm, false, true)
	if err != nil {
		return nil, err
	}
	return h.ready(ctx, c, true, interpreted)
}

// take ends a wait on c and puts its module in use. It cannot have been
// evicted (and closed) meanwhile: the wait kept it.
func (cc *compileCache) take(c *compiling, waited bool) (*Module, error) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if waited {
		c.waiting--
	}
	if c.err != nil {
		return nil, c.err
	}
	c.mod.use()
	return c.mod, nil
}

func (cc *compileCache) unwait(c *compiling) {
	cc.mu.Lock()
	c.waiting--
	cc.mu.Unlock()
}

// compiling returns the cache entry for sum, starting its compile in the
// background if it is new, awaited if wait. The venue's own module
// (builtin) is pinned. The bytes are copied: the caller may reuse them.
func (h *Host) compiling(sum [32]byte, wasm []byte, builtin, wait bool) (*compiling, error) {
	cc := &h.modules
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.closed {
		return nil, errClosed
	}
	key := cacheKey{sum: sum}
	c, ok := cc.byKey[key]
	if !ok {
		c = &compiling{key: key, done: make(chan struct{}), tried: make(chan struct{})}
		cc.byKey[key] = c
		h.startCompile(c, bytes.Clone(wasm))
	}
	c.pinned = c.pinned || builtin
	if wait {
		c.waiting++
	}
	cc.touch(c)
	return c, nil
}

// startCompile compiles c's module in the background once a compile slot
// is free. Compiling takes a core for up to seconds and several times the
// module's size in memory, so uploads compile a few at a time whoever
// sends them.
func (h *Host) startCompile(c *compiling, wasm []byte) {
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		start := time.Now()
		c.mod, c.err = h.compileInTurn(c, wasm)
		if c.mod != nil {
			c.mod.entry = c
		}
		close(c.done)
		retired := h.modules.retire(c)
		h.evict(retired)
		h.evict(h.modules.overflow())
		if c.err == nil { // a second or two of the machine's processors: the operator sees why
			interpreter := "not started"
			switch {
			case len(retired) > 0:
				interpreter = "stood in"
			case c.begun.Load():
				interpreter = "started"
			}
			h.log.Info("compiled a wasm module", "sha256", hex.EncodeToString(c.key.sum[:]), "bytes", len(wasm),
				"ms", time.Since(start).Milliseconds(), "interpreter", interpreter)
		}
	}()
}

// compileInTurn compiles c's module when a slot is free, unless nobody
// waits for it any more by then or the host closes. wazero cannot stop a
// compile under way, so a host that closes stops waiting for it: the
// compile goes on in a goroutine of its own, and the last one to end
// releases the runtime (Close), so that shutdown never waits for a module.
func (h *Host) compileInTurn(c *compiling, wasm []byte) (*Module, error) {
	select {
	case h.slots <- struct{}{}:
	case <-h.bgCtx.Done():
		return nil, errClosed
	}
	if err := h.modules.begin(c); err != nil {
		<-h.slots
		return nil, err
	}
	type result struct {
		m   *Module
		err error
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		code, shape, err := h.prepare(wasm)
		built := make(chan struct{})
		interpreted := h.interpret(c, code, shape, err, h.interpretAfter(time.Since(start)), built)
		var m *Module
		if err == nil {
			m, err = h.build(h.bgCtx, h.box, c.key.sum, code, shape)
		}
		close(built)
		<-h.slots
		done <- result{m, err} // dropped with the runtime if the host closed meanwhile
		<-interpreted
		h.modules.end()
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-h.bgCtx.Done():
		return nil, errClosed
	}
}

// errAbandoned ends a compile nobody waited for any more when its turn
// came; it is out of the cache, so the next caller compiles afresh.
var errAbandoned = venue.Errorf(venue.EUNAVAILABLE, "the module's compile was abandoned: try again")

// begin counts c's compile as under way, unless the host has closed or c
// is abandoned: about to compile with no caller left to wait for it (their
// requests ended while it queued), it is dropped from the cache. The
// venue's own module is never abandoned.
func (cc *compileCache) begin(c *compiling) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	switch {
	case cc.closed:
		return errClosed
	case !c.pinned && c.waiting == 0:
		delete(cc.byKey, c.key)
		return errAbandoned
	}
	cc.running++
	return nil
}

// end counts a compile begun as ended, and releases the runtime if the
// host closed while it ran and it was the last.
func (cc *compileCache) end() {
	cc.mu.Lock()
	cc.running--
	release := cc.release
	if cc.running > 0 {
		release = nil
	}
	cc.mu.Unlock()
	if release != nil {
		release()
	}
}

// prepare instruments wasm so that its calls can be stopped
// (interrupt.go), once for every engine that compiles it.
func (h *Host) prepare(wasm []byte) ([]byte, instrumented, error) {
	if pages, ok := memoryMin(wasm); ok && pages > h.cfg.MemoryLimitPages {
		return nil, instrumented{}, venue.Errorf(venue.EINVALID, "module's memory starts at %d pages of 64 KiB (%.2f MiB); the venue allows at most %d pages (%d MiB)",
			pages, float64(pages)/16, h.cfg.MemoryLimitPages, h.cfg.memoryLimit()>>20)
	}
	wasm, shape, err := instrument(wasm)
	if err != nil {
		return nil, instrumented{}, venue.Errorf(venue.EINVALID, "module does not compile: %v", err)
	}
	return wasm, shape, nil
}

// build compiles the instrumented wasm in box and checks its imports and
// ABI.
func (h *Host) build(ctx context.Context, box *sandbox, sum [32]byte, wasm []byte, shape instrumented) (*Module, error) {
	ctx = experimental.WithCompilationWorkers(ctx, compileWorkers(h.cfg.MaxCompiles, runtime.GOMAXPROCS(0), shape.pairMemory))
	ctx = experimental.WithFunctionListenerFactory(ctx, refuelListener(shape.refuel))
	cm, err := box.rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "module does not compile: %v", err)
	}
	m := &Module{hash: sum, box: box, compiled: cm, interpreted: box == h.interp}
	if err = checkImports(cm, box.imports); err == nil {
		m.abi, m.init, err = abiOf(cm)
	}
	if err != nil {
		cm.Close(ctx)
		return nil, err
	}
	return m, nil
}

// compileWorkers is how many goroutines compile a module whose two
// heaviest functions would hold pair bytes compiled at once, when up to
// compiles modules compile at once on procs processors: two (a 3 MB Go
// module then compiles in about 60 % of the time) if every compile can
// have two processors and the pair holds no more than the heaviest
// function the limits allow, so that a compile's peak memory stays what it
// was on one goroutine; otherwise one.
func compileWorkers(compiles, procs int, pair uint64) int {
	if compiles*2 > procs || pair > worstFuncMem {
		return 1
	}
	return 2
}

// overflow removes the least recently used idle entries beyond max (among
// those compiled and not pinned) and returns their modules.
func (cc *compileCache) overflow() []*Module {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var out []*Module
	for {
		n, lru := cc.victim()
		if n <= cc.max || lru == nil {
			return out
		}
		delete(cc.byKey, lru.key)
		if lru.mod != nil {
			out = append(out, lru.mod)
		}
	}
}

// victim counts the entries the bound applies to and picks the least
// recently used that is neither in use nor awaited.
func (cc *compileCache) victim() (int, *compiling) {
	n := 0
	var lru *compiling
	for _, c := range cc.byKey {
		if c.pinned || !isDone(c) {
			continue
		}
		n++
		if c.waiting > 0 || c.mod != nil && c.mod.busy() {
			continue
		}
		if lru == nil || c.used.Load() < lru.used.Load() {
			lru = c
		}
	}
	return n, lru
}

func isDone(c *compiling) bool { return hasClosed(c.done) }

// evict closes modules dropped from the cache: their idle instances now,
// busy ones when they come back (pools.put), and their compiled code when
// the last call using them ends. Calls under way finish normally.
func (h *Host) evict(mods []*Module) {
	for _, m := range mods {
		m.evict()
		h.pools.drop(m)
	}
}
