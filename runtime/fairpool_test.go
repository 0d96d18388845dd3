package runtime

import (
	"context"
	"testing"
	"time"
)

// acquired starts acquire in the background and reports its result.
func acquired(p *fairPool, ctx context.Context, caller string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- p.acquire(ctx, caller) }()
	return done
}

// waiters waits until n acquires wait in p.
func waiters(t *testing.T, p *fairPool, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		p.mu.Lock()
		got := p.nwait
		p.mu.Unlock()
		if got == n {
			return
		}
	}
	t.Fatalf("%d waiters never came", n)
}

func mustGet(t *testing.T, done <-chan error, who string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", who, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still waits", who)
	}
}

func stillWaits(t *testing.T, done <-chan error, who string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s got a slot (%v), want it to wait", who, err)
	case <-time.After(30 * time.Millisecond):
	}
}

func TestFairPool(t *testing.T) {
	ctx := context.Background()
	t.Run("a freed slot goes to the waiting caller holding fewest, not the first to wait", func(t *testing.T) {
		p := newFairPool(3)
		p.acquire(ctx, "crowd-1")
		p.acquire(ctx, "crowd-1")
		p.acquire(ctx, "crowd-2")
		first := acquired(p, ctx, "crowd-1")
		waiters(t, p, 1)
		second := acquired(p, ctx, "crowd-2")
		waiters(t, p, 2)
		other := acquired(p, ctx, "other")
		waiters(t, p, 3)
		p.release("crowd-1") // crowd-1 and crowd-2 hold one each, other none
		mustGet(t, other, "the caller holding none")
		stillWaits(t, first, "crowd-1's third job")
		p.release("crowd-2") // crowd-2 holds none now
		mustGet(t, second, "crowd-2's second job")
		stillWaits(t, first, "crowd-1's third job, which waited first but holds one")
		p.release("other")
		mustGet(t, first, "crowd-1's third job")
	})
	t.Run("among callers holding as many, the one that waited longest", func(t *testing.T) {
		p := newFairPool(1)
		p.acquire(ctx, "a")
		early := acquired(p, ctx, "b")
		waiters(t, p, 1)
		late := acquired(p, ctx, "c")
		waiters(t, p, 2)
		p.release("a")
		mustGet(t, early, "b")
		stillWaits(t, late, "c")
		p.release("b")
		mustGet(t, late, "c")
	})
	t.Run("a caller's own jobs keep their order", func(t *testing.T) {
		p := newFairPool(1)
		p.acquire(ctx, "a")
		one := acquired(p, ctx, "b")
		waiters(t, p, 1)
		two := acquired(p, ctx, "b")
		waiters(t, p, 2)
		p.release("a")
		mustGet(t, one, "b's first")
		stillWaits(t, two, "b's second")
		p.release("b")
		mustGet(t, two, "b's second")
	})
	t.Run("a newcomer does not pass those waiting", func(t *testing.T) {
		p := newFairPool(1)
		p.acquire(ctx, "a")
		waiting := acquired(p, ctx, "b")
		waiters(t, p, 1)
		p.release("a")
		mustGet(t, waiting, "b")
		late := acquired(p, ctx, "c")
		stillWaits(t, late, "c, while b holds the only slot")
		p.release("b")
		mustGet(t, late, "c")
	})
	t.Run("a waiter that gives up leaves the line and holds nothing", func(t *testing.T) {
		p := newFairPool(1)
		p.acquire(ctx, "a")
		gone, cancel := context.WithCancel(ctx)
		quitter := acquired(p, gone, "b")
		waiters(t, p, 1)
		cancel()
		if err := <-quitter; err == nil {
			t.Fatal("acquire returned no error after its context ended")
		}
		p.release("a")
		if p.used != 0 || p.nwait != 0 || len(p.held) != 0 || len(p.waiting) != 0 {
			t.Fatalf("used %d, %d waiting, held %v", p.used, p.nwait, p.held)
		}
	})
}
