package runtime

import "context"

// pool bounds how many jobs execute at once. Jobs beyond the bound wait
// PENDING in arrival order (a channel's waiters are served FIFO).
type pool struct{ slots chan struct{} }

func newPool(n int) pool { return pool{slots: make(chan struct{}, n)} }

func (p pool) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (p pool) release() { <-p.slots }
