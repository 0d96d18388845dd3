package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stepClock is a clock that moves only when told.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestRecounts_Reuse: a count is reused for 20 times as long as it took,
// at least a second, and an error is not reused.
func TestRecounts_Reuse(t *testing.T) {
	clock := &stepClock{t: time.Unix(1_800_000_000, 0)}
	c := newRecounts(context.Background(), clock.now, recountKeys)
	var (
		calls int
		takes time.Duration // how long the next count takes
		fail  error
	)
	count := func(context.Context) (int, error) {
		calls++
		clock.advance(takes)
		return calls, fail
	}
	for _, s := range []struct {
		name      string
		advance   time.Duration
		takes     time.Duration
		fail      error
		wantCalls int
	}{
		{"the first asks counts", 0, 0, nil, 1},
		{"a quick count is reused for a second", 999 * time.Millisecond, 0, nil, 1},
		{"then counted again", time.Millisecond, 0, nil, 2},
		{"a slow count", time.Second, 2 * time.Second, nil, 3},
		{"is reused for 20 times as long as it took", 39 * time.Second, 0, nil, 3},
		{"and no longer", time.Second, 0, nil, 4},
		{"a failed count", time.Second, 0, errors.New("store down"), 5},
		{"is not reused", 0, 0, nil, 6},
	} {
		clock.advance(s.advance)
		takes, fail = s.takes, s.fail
		n, err := c.get(context.Background(), "k", count)
		if calls != s.wantCalls || !errors.Is(err, s.fail) || err == nil && n != calls {
			t.Fatalf("%s: got %d, %v after %d counts, want %d counts", s.name, n, err, calls, s.wantCalls)
		}
	}
}

// TestRecounts_OneInFlight: callers asking while a key is being counted
// wait for that count rather than count again, and one that gives up
// does not fail the others.
func TestRecounts_OneInFlight(t *testing.T) {
	clock := &stepClock{t: time.Unix(1_800_000_000, 0)}
	c := newRecounts(context.Background(), clock.now, recountKeys)
	var calls atomic.Int32
	release := make(chan struct{})
	count := func(context.Context) (int, error) {
		calls.Add(1)
		<-release
		return 42, nil
	}
	first := c.entry("k", count)
	for range 5 {
		if c.entry("k", count) != first {
			t.Fatal("a second count of k started while the first was under way")
		}
	}
	gaveUp, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(gaveUp, "k", count); !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller that gave up got %v", err)
	}
	var wg sync.WaitGroup
	got := make([]int, 20)
	for i := range got {
		wg.Go(func() { got[i], _ = c.get(context.Background(), "k", count) })
	}
	close(release)
	wg.Wait()
	for i, n := range got {
		if n != 42 {
			t.Fatalf("caller %d got %d, want 42", i, n)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d counts for 26 asks, want 1", n)
	}
}

// TestRecounts_Bounded: past max keys the stale counts are forgotten, and
// if none is stale the one that goes stale first.
func TestRecounts_Bounded(t *testing.T) {
	clock := &stepClock{t: time.Unix(1_800_000_000, 0)}
	c := newRecounts(context.Background(), clock.now, 3)
	one := func(context.Context) (int, error) { return 1, nil }
	ask := func(key string) {
		t.Helper()
		if _, err := c.get(context.Background(), key, one); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		name    string
		advance time.Duration
		key     string
		want    []string
	}{
		{"a", 0, "a", []string{"a"}},
		{"b", time.Millisecond, "b", []string{"a", "b"}},
		{"c", time.Millisecond, "c", []string{"a", "b", "c"}},
		{"d takes the place of a, stale first", time.Millisecond, "d", []string{"b", "c", "d"}},
		{"e, once all are stale, is alone", time.Hour, "e", []string{"e"}},
	} {
		clock.advance(s.advance)
		ask(s.key)
		if len(c.keys) != len(s.want) {
			t.Fatalf("%s: %d keys kept, want %v", s.name, len(c.keys), s.want)
		}
		for _, k := range s.want {
			if _, ok := c.keys[k]; !ok {
				t.Fatalf("%s: %s forgotten, want %v kept", s.name, k, s.want)
			}
		}
	}
}
