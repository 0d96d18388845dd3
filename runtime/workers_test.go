package runtime

import (
	"sync"
	"testing"
	"time"
)

func TestWorkers(t *testing.T) {
	t.Run("every function runs, concurrently if need be", func(t *testing.T) {
		done := make(chan struct{})
		defer close(done)
		w := newWorkers(2, done)
		release := make(chan struct{})
		var wg sync.WaitGroup
		for range 10 { // more than maxIdle, all blocked at once
			wg.Add(1)
			w.run(func() { defer wg.Done(); <-release })
		}
		close(release)
		wg.Wait()
	})
	t.Run("at most maxIdle wait, and they are reused", func(t *testing.T) {
		done := make(chan struct{})
		defer close(done)
		w := newWorkers(2, done)
		var wg sync.WaitGroup
		release := make(chan struct{})
		for range 5 {
			wg.Add(1)
			w.run(func() { defer wg.Done(); <-release })
		}
		close(release)
		wg.Wait()
		waitFor(t, func() bool { return w.idle.Load() == 2 })
		time.Sleep(10 * time.Millisecond) // the three beyond maxIdle have ended, not waited
		if n := w.idle.Load(); n != 2 {
			t.Fatalf("%d idle workers, want 2", n)
		}
		ran := make(chan struct{})
		w.run(func() { close(ran) })
		<-ran
		waitFor(t, func() bool { return w.idle.Load() == 2 })
	})
	t.Run("idle workers end when the engine closes", func(t *testing.T) {
		done := make(chan struct{})
		w := newWorkers(4, done)
		release := make(chan struct{})
		for range 3 {
			w.run(func() { <-release })
		}
		close(release)
		waitFor(t, func() bool { return w.idle.Load() == 3 })
		close(done)
		waitFor(t, func() bool { return w.idle.Load() == 0 })
	})
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
	}
}

func TestConfig_UploadedSlots(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		workers, uploaded, want int
	}{
		{"the share by default", 64, 0, 48},
		{"fewer when asked", 64, 8, 8},
		{"never the venue's own quarter", 8, 20, 6},
	} {
		c := Config{Workers: tc.workers, UploadedWorkers: tc.uploaded}
		if got := c.uploadedSlots(); got != tc.want {
			t.Errorf("%s: uploadedSlots() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestUploadedWorkers(t *testing.T) {
	for _, tc := range []struct{ workers, want int }{{1, 1}, {2, 1}, {3, 2}, {4, 3}, {8, 6}, {64, 48}} {
		if got := uploadedWorkers(tc.workers); got != tc.want {
			t.Errorf("uploadedWorkers(%d) = %d, want %d", tc.workers, got, tc.want)
		}
	}
}
