package wasm

import (
	"context"
	"time"
)

// A new module's calls start on wazero's interpreter while its compile
// runs. Compiling a 3 MB Go module takes a second or two of two
// processors; interpreting it takes a tenth of that to prepare, and its
// first call (the Go runtime's start included) some 20 ms. So the first
// call of a module just uploaded answers in a fraction of a second, at
// the interpreter's speed (ten to forty times slower for the guest's own
// code, the same for the host's), and every call that begins once the
// compile has ended runs compiled. The interpreted module is retired then:
// its idle instances close, busy ones when their call ends.
//
// Both engines run the same instrumented bytes, so a call stops at its
// deadline on either, and the host functions are the same. One bound
// differs: the interpreter nests calls at most interpreterFrames deep,
// where compiled code has the venue's own bound of maxStackSlots. The
// interpreter recurses on the Go stack, some 8 KiB per call, so it cannot
// be raised to match (a deep recursion would exhaust the venue's goroutine
// stack, which is fatal to the process). Config.WaitForCompile turns the
// interpreter off.

// interpreterFrames is wazero's bound on the interpreter's nested calls.
const interpreterFrames = 2000

// interpretAfter is how long the compile may run before the interpreter
// starts beside it, given how long instrumenting the module took. With an
// on-disk cache, a module compiled before loads from it in about the time
// instrumenting took (50 ms for the 3 MB Go module, 60-100 for the
// venue's own): the interpreter would prepare it for nothing, some 0.2 s
// of a processor at every restart and for every cached upload, so it
// waits twice that first. Without a cache it starts at once.
func (h *Host) interpretAfter(instrumenting time.Duration) time.Duration {
	if h.cache == nil {
		return 0
	}
	return max(2*instrumenting, 10*time.Millisecond)
}

// interpret compiles the instrumented code on the interpreter in the
// background and publishes it in c, unless the compile ends first (built
// closes). It starts after a wait of after, and not at all if err (the
// instrumenting failed, and so will the compile) or the host keeps no
// interpreter. The returned channel closes when it is over, as c.tried
// does.
func (h *Host) interpret(c *compiling, code []byte, shape instrumented, err error, after time.Duration, built <-chan struct{}) <-chan struct{} {
	if err != nil || h.interp == nil {
		h.modules.tried(c, nil)
		return c.tried
	}
	go func() {
		if after > 0 {
			t := time.NewTimer(after)
			defer t.Stop()
			select {
			case <-t.C:
			case <-built:
			}
			if hasClosed(built) {
				h.modules.tried(c, nil)
				return
			}
		}
		c.begun.Store(true)
		m, err := h.build(h.bgCtx, h.interp, c.key.sum, code, shape)
		if err == nil { // else the compile will say why, in its own words
			m.entry = c
		}
		if !h.modules.tried(c, m) && m != nil {
			m.compiled.Close(context.Background())
		}
	}()
	return c.tried
}

// tried ends the interpreter's part of c, publishing m unless the compile
// has ended (or the host closed) first; it reports whether m was
// published.
func (cc *compileCache) tried(c *compiling, m *Module) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	published := m != nil && !isDone(c) && !cc.closed
	if published {
		c.interp = m
	}
	close(c.tried)
	return published
}

// retire takes c's interpreted module out of use once c's compile has
// ended: calls that begin from now on run compiled (or fail as the
// compile did). It returns the module for evict to close.
func (cc *compileCache) retire(c *compiling) []*Module {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	m := c.interp
	if m == nil {
		return nil
	}
	c.interp = nil
	return []*Module{m}
}

// ready waits for c's module and returns it in use (Module.done ends the
// use): the compiled one once there is one, and if interpreted the
// interpreted one while the compile runs. waited says the caller is
// counted among c's waiters.
func (h *Host) ready(ctx context.Context, c *compiling, waited, interpreted bool) (*Module, error) {
	var tried <-chan struct{}
	if interpreted {
		tried = c.tried
	}
	for {
		select {
		case <-c.done:
			return h.modules.take(c, waited)
		case <-tried:
			if m := h.modules.takeInterpreted(c, waited); m != nil {
				return m, nil
			}
			tried = nil // none, or retired already: the compiled code is next
		case <-ctx.Done():
			if waited {
				h.modules.unwait(c)
			}
			return nil, context.Cause(ctx)
		}
	}
}

// takeInterpreted ends a wait on c with its interpreted module in use, if
// it has one and the compile has not ended.
func (cc *compileCache) takeInterpreted(c *compiling, waited bool) *Module {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	m := c.interp
	if m == nil || isDone(c) {
		return nil
	}
	if waited {
		c.waiting--
	}
	m.use() // open: retire removes it from c before it can close
	return m
}

// successor is the compiled module that took over from m, an interpreted
// one since retired, so that whoever remembered m need not load the
// module's bytes again; nil if there is none (m is nil, not retired, or
// the compile failed).
func (m *Module) successor() *Module {
	if m == nil || !m.interpreted || !m.evicted.Load() || m.entry == nil || !isDone(m.entry) || m.entry.err != nil {
		return nil
	}
	return m.entry.mod
}

// hasClosed reports whether ch is closed (it is never sent on).
func hasClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
