package rest

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	venue "github.com/gridvenue/venue"
)

// bodyBudget bounds the bytes of request bodies the venue holds at once,
// from the first byte read until the request's handler returns. The bound
// on one body (maxBodyBytes) alone leaves memory open to many of them: a
// hundred clients each sending a 16 MiB invoke body held 1.7 GB before any
// became a job.
//
// Bytes are charged as they are read, in pieces of at most chargePiece, not
// as a client declares them: a client that only announces a large body
// holds nothing, one that sends the bytes holds what the venue holds for
// them. A read the budget cannot cover waits, in arrival order behind
// earlier waiters, for at most the body's idle timeout, then fails with 503.
// Bodies half read could each wait for budget another holds; so the first
// in line is never made to wait: it may overdraw the budget by what is left
// of its body, at most one body of the largest size, and once it has been
// read whole it leaves the line to the next. So the bodies held are bounded
// by the budget plus one body, and a burst larger than the budget is read
// in turn rather than all failing half way.
type bodyBudget struct {
	limit int64

	mu    sync.Mutex
	used  int64
	line  list.List     // of *bodyCharge, the bodies that have had to wait, in order
	freed chan struct{} // closed, and replaced, when budget comes back while any wait
}

// chargePiece is the most one read is charged for before it reads.
const chargePiece = 64 << 10

// bodyCharge is one request body's account with the budget.
type bodyCharge struct {
	held  int64
	place *list.Element // in line; nil if it never waited, or has been read whole
}

func newBodyBudget(limit int64) *bodyBudget {
	return &bodyBudget{limit: limit, freed: make(chan struct{})}
}

// take charges n bytes to c, waiting up to wait for them (see bodyBudget).
func (b *bodyBudget) take(ctx context.Context, c *bodyCharge, n int64, wait time.Duration) error {
	b.mu.Lock()
	if b.grants(c, n) {
		b.used += n
		c.held += n
		b.mu.Unlock()
		return nil
	}
	if c.place == nil {
		c.place = b.line.PushBack(c)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for !b.grants(c, n) {
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-timer.C:
			return b.refusal()
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		b.mu.Lock()
	}
	b.used += n
	c.held += n
	b.mu.Unlock()
	return nil
}

// grants reports whether c may take n bytes now: the first in line always,
// anyone else while the budget holds them. A small read may so pass a
// larger one waiting, but none waits for ever: those ahead of it in line
// leave as their bodies are read, and the first never waits.
func (b *bodyBudget) grants(c *bodyCharge, n int64) bool {
	if first := b.line.Front(); first != nil && first == c.place {
		return true
	}
	return b.used+n <= b.limit
}

// give returns n of c's bytes.
func (b *bodyBudget) give(c *bodyCharge, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	c.held -= n
	b.wake()
	b.mu.Unlock()
}

// read takes c out of line once its body has been read whole: it charges
// nothing more, so it must not hold the first place.
func (b *bodyBudget) read(c *bodyCharge) {
	if c.place == nil {
		return
	}
	b.mu.Lock()
	b.leaveLine(c)
	b.mu.Unlock()
}

// release returns all c holds, when its request is over.
func (b *bodyBudget) release(c *bodyCharge) {
	if c.held == 0 && c.place == nil {
		return
	}
	b.mu.Lock()
	b.used -= c.held
	c.held = 0
	b.leaveLine(c)
	b.wake()
	b.mu.Unlock()
}

func (b *bodyBudget) leaveLine(c *bodyCharge) {
	if c.place != nil {
		b.line.Remove(c.place)
		c.place = nil
		b.wake()
	}
}

// wake tells the waiters something changed; b.mu is held.
func (b *bodyBudget) wake() {
	if b.line.Len() > 0 {
		close(b.freed)
		b.freed = make(chan struct{})
	}
}

// refusal is the error a read fails with when its wait is over.
func (b *bodyBudget) refusal() error {
	return venue.Errorf(venue.EUNAVAILABLE, "The venue holds as many request bodies and large job records as it allows at once (maxBodiesBytes, %s): retry shortly",
		byteSize(b.limit))
}

// byteSize words a size for an operator: 256 MiB, 1.5 GiB, 64 KiB, 1000 bytes.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
