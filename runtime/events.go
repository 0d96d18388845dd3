package runtime

import (
	"context"
	"sync"

	venue "github.com/gridvenue/venue"
)

// hub fans job records out to local subscribers (SSE streams). Each
// subscriber has a buffer; one that falls that far behind is dropped
// (its channel closed) rather than slowing the job down, and its client
// reconnects or polls.
type hub struct {
	mu   sync.RWMutex
	subs map[venue.JobID]map[chan *venue.Job]struct{}
}

const subscriberBuffer = 64

func (h *hub) subscribe(id venue.JobID) chan *venue.Job {
	ch := make(chan *venue.Job, subscriberBuffer)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[venue.JobID]map[chan *venue.Job]struct{}{}
	}
	if h.subs[id] == nil {
		h.subs[id] = map[chan *venue.Job]struct{}{}
	}
	h.subs[id][ch] = struct{}{}
	return ch
}

func (h *hub) unsubscribe(id venue.JobID, ch chan *venue.Job) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[id][ch]; ok {
		delete(h.subs[id], ch)
		close(ch)
		if len(h.subs[id]) == 0 {
			delete(h.subs, id)
		}
	}
}

// ids returns the jobs watched.
func (h *hub) ids() []venue.JobID {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]venue.JobID, 0, len(h.subs))
	for id := range h.subs {
		out = append(out, id)
	}
	return out
}

func (h *hub) watched(id venue.JobID) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.subs[id]) > 0
}

func (h *hub) publish(j *venue.Job) {
	h.mu.RLock()
	subs := h.subs[j.ID]
	var slow []chan *venue.Job
	for ch := range subs {
		select {
		case ch <- j:
		default:
			slow = append(slow, ch)
		}
	}
	h.mu.RUnlock()
	for _, ch := range slow {
		h.unsubscribe(j.ID, ch)
	}
}

// Watch streams the caller's job: first its current record, then every
// change, ending after a terminal record. The channel also closes when ctx
// ends, the stream falls too far behind, or the engine has closed (after
// the ends it recorded as it closed). Returns ENOTFOUND if the caller
// has no such job.
func (e *Engine) Watch(ctx context.Context, id venue.JobID) (<-chan *venue.Job, error) {
	ch := e.hub.subscribe(id)
	cur, err := e.settledJob(ctx, id)
	if err != nil {
		e.hub.unsubscribe(id, ch)
		return nil, err
	}
	out := make(chan *venue.Job, 1)
	go func() {
		defer close(out)
		defer e.hub.unsubscribe(id, ch)
		w := watch{ctx: ctx, out: out, last: cur}
		if !send(ctx, out, cur) || cur.Status.Terminal() {
			return
		}
		for {
			select {
			case j, ok := <-ch:
				if !ok || !w.pass(j) {
					return
				}
			case <-e.closed:
				// Close published every end before this, synchronously:
				// what is queued is all there will be.
				for {
					select {
					case j, ok := <-ch:
						if ok && w.pass(j) {
							continue
						}
					default:
					}
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// watch is one Watch stream's sending side.
type watch struct {
	ctx  context.Context
	out  chan<- *venue.Job
	last *venue.Job
}

// pass sends j on unless it was sent already, and reports whether the
// stream goes on. A version sent already is sent again only as another
// node's record of it, which the store kept instead of this node's (a
// cancel there as the job started here).
func (w *watch) pass(j *venue.Job) bool {
	if j.Version < w.last.Version || (j.Version == w.last.Version && j.Status == w.last.Status) {
		return true
	}
	w.last = j
	return send(w.ctx, w.out, j) && !j.Status.Terminal()
}

// settledJob is Job, except that an end this node reached and has not yet
// stored is waited for: the store may keep another node's record instead.
func (e *Engine) settledJob(ctx context.Context, id venue.JobID) (*venue.Job, error) {
	rec, err := e.Job(ctx, id)
	if err != nil || !rec.Status.Terminal() {
		return rec, err
	}
	j := e.jobs.get(id)
	if j == nil {
		return rec, nil
	}
	if _, t := j.snapshotTicket(); t.wait(ctx) != nil {
		return rec, nil // failed to store, or the watcher left: what this node knows
	}
	return e.Job(ctx, id)
}

func send(ctx context.Context, out chan<- *venue.Job, j *venue.Job) bool {
	select {
	case out <- j:
		return true
	case <-ctx.Done():
		return false
	}
}
