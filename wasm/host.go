package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	venue "github.com/gridvenue/venue"
)

// Host runs WebAssembly operations. It owns a wazero runtime, the compile
// cache and the instance pools. It is safe for concurrent use.
type Host struct {
	cfg     Config
	log     *slog.Logger
	box     *sandbox                // every module, the venue's own and users'
	interp  *sandbox                // modules' first calls, while their compile runs (tiers.go); nil with WaitForCompile
	cache   wazero.CompilationCache // nil without CacheDir
	modCfg  wazero.ModuleConfig     // what every instance starts from
	modules compileCache
	slots   chan struct{} // one per compile under way (Config.MaxCompiles)
	pools   pools
	gate    *cpuGate       // the processors uploaded code, and long calls of the venue's own, take turns on
	bg      sync.WaitGroup // compiles and the idle sweeper
	bgCtx   context.Context
	stop    context.CancelFunc
}

var errClosed = venue.Errorf(venue.EUNAVAILABLE, "the wasm host is closed")

// New starts a host. Close releases it.
func New(ctx context.Context, cfg Config) (*Host, error) {
	cfg.setDefaults()
	h := &Host{cfg: cfg, log: cfg.Logger, slots: make(chan struct{}, cfg.MaxCompiles), gate: newCPUGate(cfg.Processors, runtime.GOMAXPROCS(0))}
	rc := wazero.NewRuntimeConfig().WithMemoryLimitPages(cfg.MemoryLimitPages)
	if cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, err
		}
		h.cache, rc = cache, rc.WithCompilationCache(cache)
	}
	// No WithCloseOnContextDone: modules are instrumented to stop at the
	// host's word instead (interrupt.go), which costs Go guests nothing like
	// its exit to Go at every loop.
	var err error
	if h.box, err = h.newSandbox(ctx, rc); err != nil {
		return nil, err
	}
	if !cfg.WaitForCompile {
		if h.interp, err = h.newSandbox(ctx, wazero.NewRuntimeConfigInterpreter().WithMemoryLimitPages(cfg.MemoryLimitPages)); err != nil {
			h.box.rt.Close(ctx)
			return nil, err
		}
	}
	h.modCfg = moduleConfig(cfg.memoryLimit())
	h.modules.byKey, h.modules.max = map[cacheKey]*compiling{}, cfg.MaxModules
	h.pools.init(cfg)
	h.bgCtx, h.stop = context.WithCancel(context.WithoutCancel(ctx))
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		h.sweep(h.bgCtx, cfg.IdleTimeout)
	}()
	return h, nil
}

// sweep closes instances idle for longer than timeout, and modules the
// compile cache kept past its bound while they were in use, and prunes the
// on-disk cache at start and every diskPruneEvery, until ctx ends.
func (h *Host) sweep(ctx context.Context, timeout time.Duration) {
	t := time.NewTicker(max(timeout/2, 10*time.Millisecond))
	defer t.Stop()
	var pruned time.Time
	for {
		if now := time.Now(); now.Sub(pruned) >= diskPruneEvery {
			h.pruneDisk()
			pruned = now
		}
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, in := range h.pools.expired(now.Add(-timeout)) {
				in.close()
			}
			h.evict(h.modules.overflow())
		}
	}
}

// diskPruneEvery is how often the on-disk cache is pruned.
const diskPruneEvery = time.Hour

func (h *Host) pruneDisk() {
	if h.cfg.CacheDir == "" {
		return
	}
	n, err := pruneDiskCache(h.cfg.CacheDir, h.cfg.CacheMaxBytes)
	if err != nil {
		h.log.Warn("pruning the compiled-module cache", "dir", h.cfg.CacheDir, "err", err)
	} else if n > 0 {
		h.log.Info("pruned the compiled-module cache", "dir", h.cfg.CacheDir, "removed", n)
	}
}

// sandbox is a wazero runtime and the host modules its guests may import.
// A guest is stopped when its call's context ends by the interrupt check
// every module is compiled with (interrupt.go); a guest waiting in the host
// (a sleep, a host call) is woken by the same context on the host side.
type sandbox struct {
	rt      wazero.Runtime
	imports map[string]api.Module // by name
}

func (h *Host) newSandbox(ctx context.Context, rc wazero.RuntimeConfig) (*sandbox, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	// The WASI calls whose work the guest sizes check on its call first
	// (wasiListener).
	if _, err := wasi_snapshot_preview1.Instantiate(experimental.WithFunctionListenerFactory(ctx, wasiListener()), rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	vm, err := h.instantiateVenue(ctx, rt)
	if err != nil {
		rt.Close(ctx)
		return nil, err
	}
	return &sandbox{rt: rt, imports: map[string]api.Module{
		wasi_snapshot_preview1.ModuleName: rt.Module(wasi_snapshot_preview1.ModuleName),
		hostModule:                        vm,
	}}, nil
}

// moduleConfig is the sandbox every instance gets: real clocks and
// randomness (Go guests seed map hashing from them; wazero's defaults are
// deterministic), no filesystem, argv[0] only, and in the environment only
// GOMEMLIMIT (guestMemLimit). Each instance adds its stderr, its sleep and its
// randomness (configFor).
func moduleConfig(memoryLimit uint64) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName(""). // instances are anonymous: many may share a module
		WithArgs("op").
		WithEnv("GOMEMLIMIT", guestMemLimit(memoryLimit)).
		WithSysWalltime().
		WithSysNanotime().
		WithRandSource(rand.Reader)
}

// guestMemLimit is the GOMEMLIMIT a guest is given: seven eighths of its
// memory limit. A Go guest otherwise lets its heap grow to twice what it
// kept at its last collection, and may run into the limit holding garbage
// it could have collected; whether it did depended on when its collector
// happened to run. Other guests ignore the variable.
func guestMemLimit(memoryLimit uint64) string {
	return fmt.Sprintf("%dMiB", memoryLimit/8*7>>20)
}

// configFor is the module config of an instance whose calls are tracked by
// c: a sleeping guest wakes when its call's context ends, so that the
// deadline can stop it (wazero only checks between instructions), and its
// randomness is read a slice at a time (guestRand).
func (h *Host) configFor(c *callState, stderr *capture) wazero.ModuleConfig {
	return h.modCfg.WithStderr(stderr).WithNanosleep(c.sleep).WithRandSource(guestRand{c})
}

// Close stops the host: it closes every instance (calls still running fail)
// and every compiled module. It does not wait for compiles under way, which
// wazero cannot stop (an audit's took minutes, and held the venue's
// shutdown as long): their callers fail at once, and the last of them to
// end closes the runtime, which a compile must not outlive.
func (h *Host) Close(ctx context.Context) error {
	h.modules.mu.Lock()
	h.modules.closed = true
	later := h.modules.running > 0
	if later {
		h.modules.release = func() { h.release(context.WithoutCancel(ctx)) }
	}
	h.modules.mu.Unlock()
	h.stop()
	h.bg.Wait()
	h.pools.close()
	if later {
		return nil
	}
	return h.release(ctx)
}

// release closes the runtimes, with every compiled module, and the
// on-disk cache.
func (h *Host) release(ctx context.Context) error {
	err := h.box.rt.Close(ctx)
	if h.interp != nil {
		err = errors.Join(err, h.interp.rt.Close(ctx))
	}
	if h.cache != nil {
		err = errors.Join(err, h.cache.Close(ctx))
	}
	return err
}
