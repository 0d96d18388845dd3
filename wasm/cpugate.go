package wasm

import (
	"context"
	"crypto/rand"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Why uploaded guest code runs on fewer processors than the venue has:
// machine code is never preempted, so a guest that computes keeps its
// processor until it reaches Go, which it does at $refuel (interrupt.go),
// and Go takes a processor from a goroutine only after 10 ms of it. With
// every processor running guests, each of a request's wake-ups waited
// behind them, and the network's readiness is polled by a processor only
// when it has nothing else to run, or every 10 ms by the runtime's monitor:
// two looping uploads slowed the venue's echo from 0.17 ms to 60 ms, four
// to 131 ms (BenchmarkEchoBesideSpinningUploads in cmd/venued). So a call of uploaded code holds one of Config.Processors
// tokens while its guest code runs (all but one of GOMAXPROCS by default),
// gives it up while it waits in the host (a host call, a sleep), and hands
// it to the next waiting call at a $refuel once it has run for gateSlice.
// The venue's own operations take no token while they are short, as they
// mostly are, and must not queue behind uploaded code; one that computes
// for gateSlice (an input built to be costly) takes turns from then on.

// gateSlice is how long a call of uploaded code keeps its token while
// others wait for one.
const gateSlice = 2 * time.Millisecond

// cpuGate hands out its tokens in the order they were asked for.
type cpuGate struct {
	mu      sync.Mutex
	free    int
	queue   []chan struct{} // closed when handed a token
	waiting atomic.Int32    // len(queue), read without the lock at every $refuel
	spare   bool            // the tokens leave a processor to the venue
}

// newCPUGate returns a gate of n tokens on procs processors.
func newCPUGate(n, procs int) *cpuGate {
	return &cpuGate{free: n, spare: n < procs}
}

// acquire takes a token, after the calls that asked before, unless done
// is closed first.
func (g *cpuGate) acquire(done <-chan struct{}) bool {
	g.mu.Lock()
	if g.free > 0 && len(g.queue) == 0 {
		g.free--
		g.mu.Unlock()
		return true
	}
	ch := make(chan struct{})
	g.queue = append(g.queue, ch)
	g.waiting.Store(int32(len(g.queue)))
	g.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-done:
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if i := slices.Index(g.queue, ch); i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
		g.waiting.Store(int32(len(g.queue)))
	} else { // handed one as the call ended: the next caller gets it
		g.releaseLocked()
	}
	return false
}

func (g *cpuGate) release() {
	g.mu.Lock()
	g.releaseLocked()
	g.mu.Unlock()
}

func (g *cpuGate) releaseLocked() {
	if len(g.queue) == 0 {
		g.free++
		return
	}
	close(g.queue[0])
	g.queue = slices.Delete(g.queue, 0, 1)
	g.waiting.Store(int32(len(g.queue)))
}

// enterGuest takes c's token, for a call that takes turns, before its
// guest code runs; false if the call ends first.
func (c *callState) enterGuest() bool {
	if !c.gated || c.held {
		return true
	}
	if !c.gate.acquire(c.done) {
		return false
	}
	c.held, c.since = true, time.Now()
	return true
}

// leaveGuest gives c's token back, as its guest code stops running.
func (c *callState) leaveGuest() {
	if c.held {
		c.held = false
		c.gate.release()
	}
}

// reenterGuest takes the token back after a wait in the host, trapping the
// guest if its call ended meanwhile: with a token free, acquire would not
// notice, and a guest looping over venue.call (a request of 16 MiB, which
// the host scans whole) ran on past its deadline, reaching $refuel once
// every 16,384 calls.
func (c *callState) reenterGuest() {
	c.trapIfEnded("the call ended while the guest waited in the host")
	if !c.enterGuest() {
		trap("the call ended while the guest waited for a processor")
	}
}

// yield is the guest's $refuel. A call of the venue's own code begins to
// take turns once it has computed for gateSlice (from its first $refuel,
// which a short call never reaches). A call that takes turns hands its
// token to the first waiting call once its slice is over, or, where the
// tokens leave the venue no processor of its own, lets the goroutines
// waiting for one run.
func (c *callState) yield() {
	if c.gate == nil {
		return
	}
	if !c.gated {
		if c.since.IsZero() {
			c.since = time.Now()
		} else if time.Since(c.since) >= gateSlice {
			c.gated = true
			c.reenterGuest()
		}
		return
	}
	if !c.held || time.Since(c.since) < gateSlice {
		return
	}
	switch {
	case c.gate.waiting.Load() > 0:
		c.leaveGuest()
		c.reenterGuest()
	case !c.gate.spare:
		runtime.Gosched()
		c.since = time.Now()
	}
}

// refuelListener returns the listener factory that has wazero call Go at
// the entry of a module's $refuel, the function of index refuel: the only
// function with a listener, so the others compile as they did. There the
// call yields its processor when its turn is up, and once the call's
// context has ended sets $interrupt, which $refuel reads next and traps
// on. The guest's own goroutine sets it: on the interpreter, globals are
// Go values that another goroutine may not write while the guest reads
// them, and $refuel is the only reader on either engine.
func refuelListener(refuel uint32) experimental.FunctionListenerFactory {
	return experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		if def.Index() != refuel {
			return nil
		}
		return experimental.FunctionListenerFunc(func(ctx context.Context, mod api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
			if c := callOf(ctx); c != nil {
				c.yield()
				if c.ended() {
					mod.ExportedGlobal(interruptExport).(api.MutableGlobal).Set(1)
				}
			}
		})
	})
}

// callListener is a listener that runs fn on the call in progress, if any,
// before the function it listens to.
func callListener(fn func(*callState)) experimental.FunctionListener {
	return experimental.FunctionListenerFunc(func(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
		if c := callOf(ctx); c != nil {
			fn(c)
		}
	})
}

// Host work the guest sizes. A call of an import counts as no check of the
// guest's (interrupt.go), yet some WASI calls do as much work as the guest
// asks: random_get fills up to the whole memory (some 50 ms a 16 MiB),
// fd_read and fd_write walk up to millions of buffers (a few ms a million,
// empty ones too), and every path_* function copies and cleans its path,
// up to the whole memory, before it finds that no directory is open. A
// guest looping over one reached $refuel every 16,384 calls, minutes
// during which it kept its processor and ran past its deadline. So those
// calls first check on the guest's call (hostWork), and random_get's
// source does between slices of its work (guestRand).

// wasiListener has wazero call hostWork before each WASI call but those
// whose work is small and fixed (clocks, above all, which a Go guest reads
// all the time): a function wazero adds or changes is checked.
func wasiListener() experimental.FunctionListenerFactory {
	return experimental.FunctionListenerFactoryFunc(func(def api.FunctionDefinition) experimental.FunctionListener {
		switch def.Name() {
		case "clock_time_get", "clock_res_get", "args_sizes_get", "environ_sizes_get", "proc_exit", "sched_yield":
			return nil
		}
		return callListener((*callState).hostWork)
	})
}

// hostWork traps the guest if its call has ended, and otherwise hands its
// processor on if its slice is over, as at $refuel.
func (c *callState) hostWork() {
	c.trapIfEnded("the call ended while the guest called the host")
	c.yield()
}

// trapIfEnded traps the guest, saying why, if its call has ended.
func (c *callState) trapIfEnded(why string) {
	select {
	case <-c.done:
		trap("%s", why)
	default:
	}
}

// guestRand is an instance's randomness (WASI random_get): crypto/rand,
// read randChunk at a time, with hostWork before each.
type guestRand struct{ c *callState }

const randChunk = 1 << 20

func (r guestRand) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		r.c.hostWork()
		m, err := rand.Read(p[n:min(len(p), n+randChunk)])
		if n += m; err != nil {
			return n, err
		}
	}
	return n, nil
}
