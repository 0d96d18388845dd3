package rest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
)

// taken runs take in the background and reports its result.
func taken(b *bodyBudget, c *bodyCharge, n int64, wait time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() { done <- b.take(context.Background(), c, n, wait) }()
	return done
}

// pending fails if done has a result within a while.
func pending(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s returned %v, want it to wait", what, err)
	case <-time.After(50 * time.Millisecond):
	}
}

func granted(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still waits", what)
	}
}

func TestBodyBudget(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, b *bodyBudget)
	}{
		{"within the limit nobody waits", func(t *testing.T, b *bodyBudget) {
			var x, y bodyCharge
			if b.take(ctx, &x, 60, time.Hour) != nil || b.take(ctx, &y, 40, time.Hour) != nil {
				t.Fatal("refused within the limit")
			}
			if b.used != 100 || x.place != nil || y.place != nil {
				t.Fatalf("used %d, in line %v %v", b.used, x.place != nil, y.place != nil)
			}
		}},
		{"the first in line overdraws; the next waits for it to be read", func(t *testing.T, b *bodyBudget) {
			var holder, first, second bodyCharge
			b.take(ctx, &holder, 90, time.Hour)
			granted(t, taken(b, &first, 50, time.Hour), "the first past the limit")
			done := taken(b, &second, 5, time.Hour)
			pending(t, done, "the second, behind the first")
			b.read(&first) // read whole: it leaves the line, and the second is first
			granted(t, done, "the second, once first in line")
			if b.used != 145 {
				t.Fatalf("used %d, want 145", b.used)
			}
		}},
		{"a small read passes a waiter where the budget has room", func(t *testing.T, b *bodyBudget) {
			var holder, first, second, small bodyCharge
			b.take(ctx, &holder, 90, time.Hour)
			granted(t, taken(b, &first, 20, time.Hour), "the first in line")
			waiting := taken(b, &second, 20, time.Hour)
			pending(t, waiting, "the second")
			b.release(&holder)
			granted(t, waiting, "the second, once the holder is done")
			b.give(&first, 20)
			granted(t, taken(b, &small, 60, time.Hour), "a read the budget holds")
			if small.place != nil {
				t.Fatal("a read granted at once stood in line")
			}
		}},
		{"a release wakes a waiter and a wait ends in a refusal", func(t *testing.T, b *bodyBudget) {
			var holder, first, second bodyCharge
			b.take(ctx, &holder, 100, time.Hour)
			granted(t, taken(b, &first, 10, time.Hour), "the first in line")
			err := b.take(ctx, &second, 10, 30*time.Millisecond)
			var ve *venue.Error
			if !errors.As(err, &ve) || ve.Code != venue.EUNAVAILABLE || !strings.Contains(ve.Message, "maxBodiesBytes, 100 bytes") {
				t.Fatalf("err %v, want a 503 naming maxBodiesBytes", err)
			}
			b.release(&second)
			b.release(&first)
			b.release(&holder)
			if b.used != 0 || b.line.Len() != 0 {
				t.Fatalf("used %d, %d in line after every release", b.used, b.line.Len())
			}
		}},
		{"a client that goes away stops waiting", func(t *testing.T, b *bodyBudget) {
			var holder, first, second bodyCharge
			b.take(ctx, &holder, 100, time.Hour)
			granted(t, taken(b, &first, 10, time.Hour), "the first in line")
			gone, cancel := context.WithCancel(ctx)
			cancel()
			if err := b.take(gone, &second, 10, time.Hour); !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want the request's cancellation", err)
			}
		}},
		{"a partial give returns what a read did not use", func(t *testing.T, b *bodyBudget) {
			var c bodyCharge
			b.take(ctx, &c, 64, time.Hour)
			b.give(&c, 60)
			if b.used != 4 || c.held != 4 {
				t.Fatalf("used %d, held %d, want 4 and 4", b.used, c.held)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newBodyBudget(100)) })
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{1000: "1000 bytes", 256 << 20: "256 MiB", 3 << 19: "1.5 MiB", 2 << 30: "2 GiB", 3 << 29: "1.5 GiB", 64 << 10: "64 KiB", 1500: "1500 bytes"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
