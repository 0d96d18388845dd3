package storetest

import (
	"fmt"
	"sync"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func testJobMessages(t *testing.T, s runtime.Store) {
	id, other := newJobID(), newJobID()
	mustWrite(t, s, job(id, alice, venue.StatusInputRequired, 1, "m"), job(other, alice, venue.StatusStarted, 1, "m"))
	t.Run("empty queue returns nil", func(t *testing.T) {
		if msg, err := s.TakeJobMessage(t.Context(), id); err != nil || msg != nil {
			t.Fatalf("TakeJobMessage = %q, %v; want nil, nil", msg, err)
		}
	})
	t.Run("messages come out first in first out", func(t *testing.T) {
		msgs := []string{`{"a":1}`, `"two"`, ` [3] `}
		for i, m := range msgs {
			n, err := s.AddJobMessage(t.Context(), id, []byte(m))
			if err != nil || n != i+1 {
				t.Fatalf("AddJobMessage = %d, %v; want %d queued", n, err, i+1)
			}
		}
		if n, err := s.AddJobMessage(t.Context(), other, []byte(`"other"`)); err != nil || n != 1 {
			t.Fatalf("other job's queue: AddJobMessage = %d, %v; want 1", n, err)
		}
		for _, m := range msgs {
			got, err := s.TakeJobMessage(t.Context(), id)
			if err != nil || string(got) != m {
				t.Fatalf("TakeJobMessage = %q, %v; want %q", got, err, m)
			}
		}
		if msg, _ := s.TakeJobMessage(t.Context(), id); msg != nil {
			t.Fatalf("queue not empty after taking all: %q", msg)
		}
		if got, _ := s.TakeJobMessage(t.Context(), other); string(got) != `"other"` {
			t.Fatalf("other job's message = %q", got)
		}
	})
	t.Run("empty message is still a message", func(t *testing.T) {
		if _, err := s.AddJobMessage(t.Context(), id, []byte{}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.TakeJobMessage(t.Context(), id); err != nil || got == nil || len(got) != 0 {
			t.Fatalf("TakeJobMessage = %q (nil %v), %v; want empty, non-nil", got, got == nil, err)
		}
	})
	t.Run("message to unknown job is not found", func(t *testing.T) {
		_, err := s.AddJobMessage(t.Context(), newJobID(), []byte(`1`))
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("concurrent takers each take a message once", func(t *testing.T) {
		testConcurrentTakers(t, s, id)
	})
	t.Run("a queue holds a bounded number of messages", func(t *testing.T) {
		full := newJobID()
		mustWrite(t, s, job(full, alice, venue.StatusStarted, 1, "m"))
		for i := range 64 {
			if _, err := s.AddJobMessage(t.Context(), full, []byte(`1`)); err != nil {
				t.Fatalf("message %d: %v", i+1, err)
			}
		}
		_, err := s.AddJobMessage(t.Context(), full, []byte(`1`))
		wantCode(t, err, venue.ECONFLICT)
		if _, err := s.TakeJobMessage(t.Context(), full); err != nil {
			t.Fatal(err)
		}
		if n, err := s.AddJobMessage(t.Context(), full, []byte(`2`)); err != nil || n != 64 {
			t.Fatalf("after one was taken: AddJobMessage = %d, %v; want 64 queued", n, err)
		}
	})
	t.Run("a queue holds a bounded number of bytes", func(t *testing.T) {
		big := newJobID()
		mustWrite(t, s, job(big, alice, venue.StatusStarted, 1, "m"))
		msg := make([]byte, 16<<20)
		for i := range 2 {
			if _, err := s.AddJobMessage(t.Context(), big, msg); err != nil {
				t.Fatalf("message %d: %v", i+1, err)
			}
		}
		_, err := s.AddJobMessage(t.Context(), big, []byte(`1`))
		wantCode(t, err, venue.ECONFLICT)
		_, err = s.AddJobMessage(t.Context(), newJobID(), make([]byte, 32<<20+1))
		wantCode(t, err, venue.ENOTFOUND)
		_, err = s.AddJobMessage(t.Context(), big, make([]byte, 32<<20+1))
		wantCode(t, err, venue.ETOOLARGE)
		if err := s.DropJobMessages(t.Context(), big); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an ended job takes no message, and its queue can be dropped", func(t *testing.T) {
		ended := newJobID()
		mustWrite(t, s, job(ended, alice, venue.StatusStarted, 1, "m"))
		if _, err := s.AddJobMessage(t.Context(), ended, []byte(`"left"`)); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, s, job(ended, alice, venue.StatusComplete, 2, "m"))
		_, err := s.AddJobMessage(t.Context(), ended, []byte(`"late"`))
		wantCode(t, err, venue.ECONFLICT)
		if err := s.DropJobMessages(t.Context(), ended); err != nil {
			t.Fatal(err)
		}
		if msg, err := s.TakeJobMessage(t.Context(), ended); err != nil || msg != nil {
			t.Fatalf("TakeJobMessage after drop = %q, %v; want nil, nil", msg, err)
		}
	})
}

func testConcurrentTakers(t *testing.T, s runtime.Store, id venue.JobID) {
	const n = 40
	for i := range n {
		if _, err := s.AddJobMessage(t.Context(), id, fmt.Appendf(nil, "%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu    sync.Mutex
		taken = map[string]int{}
		wg    sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for {
				msg, err := s.TakeJobMessage(t.Context(), id)
				if err != nil {
					t.Error(err)
					return
				}
				if msg == nil {
					return
				}
				mu.Lock()
				taken[string(msg)]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for i := range n {
		if c := taken[fmt.Sprint(i)]; c != 1 {
			t.Fatalf("message %d taken %d times", i, c)
		}
	}
	if msg, _ := s.TakeJobMessage(t.Context(), id); msg != nil {
		t.Fatalf("message left after concurrent takers: %q", msg)
	}
}
