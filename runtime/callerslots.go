package runtime

import (
	"context"
	"sync"
)

// callerSlots bounds how many jobs of one caller execute at once, so that
// one caller (above all the anonymous identity, which everyone without a
// token shares) cannot hold every worker while others wait. A caller's job
// takes its caller's slot before a worker slot and gives both back
// together, also while it waits for input. Jobs spawned by jobs are not
// counted: their parent already holds a slot, and making a child wait for
// its own caller's slot could deadlock a parent that waits for it.
type callerSlots struct {
	max  int // 0: no bound
	mu   sync.Mutex
	sems map[string]*callerSem
}

type callerSem struct {
	slots chan struct{}
	users int // jobs holding or waiting for a slot; the entry goes at 0
}

func newCallerSlots(max int) *callerSlots {
	return &callerSlots{max: max, sems: map[string]*callerSem{}}
}

// applies reports whether j takes a caller slot.
func (s *callerSlots) applies(j *job) bool { return s.max > 0 && !j.spawned }

// acquire waits for one of did's slots, in arrival order.
func (s *callerSlots) acquire(ctx context.Context, did string) error {
	s.mu.Lock()
	sem := s.sems[did]
	if sem == nil {
		sem = &callerSem{slots: make(chan struct{}, s.max)}
		s.sems[did] = sem
	}
	sem.users++
	s.mu.Unlock()
	select {
	case sem.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		s.leave(did, sem)
		return context.Cause(ctx)
	}
}

// release gives one of did's slots back.
func (s *callerSlots) release(did string) {
	s.mu.Lock()
	sem := s.sems[did]
	s.mu.Unlock()
	<-sem.slots
	s.leave(did, sem)
}

func (s *callerSlots) leave(did string, sem *callerSem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sem.users--; sem.users == 0 {
		delete(s.sems, did)
	}
}
