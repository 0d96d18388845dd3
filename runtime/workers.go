package runtime

import "sync/atomic"

// workers runs executions on goroutines kept from earlier ones. A new
// goroutine starts on a small stack, which a Wasm call outgrows at once:
// with a goroutine per execution, every job copied its stack to a larger
// one. A finished worker waits for the next execution, up to maxIdle of
// them at once; the rest end. Nothing bounds how many run: the pool's
// slots do that, and an execution that waits (for a reply, say) holds
// its goroutine as it held its own.
type workers struct {
	next    chan func()
	idle    atomic.Int32
	maxIdle int32
	done    <-chan struct{} // closed when the engine closes: idle workers end
}

func newWorkers(maxIdle int, done <-chan struct{}) *workers {
	return &workers{next: make(chan func()), maxIdle: int32(maxIdle), done: done}
}

// run runs f on an idle worker, or on a new one if none is waiting.
func (w *workers) run(f func()) {
	select {
	case w.next <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	for {
		f()
		if w.idle.Add(1) > w.maxIdle {
			w.idle.Add(-1)
			return
		}
		select {
		case f = <-w.next:
			w.idle.Add(-1)
		case <-w.done:
			w.idle.Add(-1)
			return
		}
	}
}
