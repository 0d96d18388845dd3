package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

// TestCPUGate_TurnsInOrder: a gate of one token hands it to its waiters
// in the order they asked, and a waiter whose call ends leaves the queue
// without taking a turn.
func TestCPUGate_TurnsInOrder(t *testing.T) {
	g := newCPUGate(1, 2)
	if !g.acquire(nil) {
		t.Fatal("a free token was refused")
	}
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	gone := make(chan struct{})
	for i := range 4 {
		var done chan struct{}
		if i == 2 {
			done = gone
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !g.acquire(done) {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			g.release()
		}()
		waitFor(t, func() bool { return g.waiting.Load() == int32(i+1) })
	}
	close(gone)
	waitFor(t, func() bool { return g.waiting.Load() == 3 })
	g.release()
	wg.Wait()
	if want := []int{0, 1, 3}; !slices.Equal(order, want) {
		t.Fatalf("turns %v, want %v", order, want)
	}
	if g.free != 1 || len(g.queue) != 0 {
		t.Fatalf("%d free and %d waiting at the end, want 1 and 0", g.free, len(g.queue))
	}
}

// TestCPUGate_TokensOutliveEndedCalls: however calls end while they wait
// (before their turn, or as it is handed to them), the gate ends with all
// its tokens.
func TestCPUGate_TokensOutliveEndedCalls(t *testing.T) {
	g := newCPUGate(2, 3)
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				done := make(chan struct{})
				if rand.IntN(3) == 0 {
					time.AfterFunc(time.Duration(rand.IntN(50))*time.Microsecond, func() { close(done) })
				}
				if g.acquire(done) {
					g.release()
				}
			}
		}()
	}
	wg.Wait()
	if g.free != 2 || len(g.queue) != 0 || g.waiting.Load() != 0 {
		t.Fatalf("%d free, %d queued (%d counted) at the end, want 2 and 0", g.free, len(g.queue), g.waiting.Load())
	}
}

// TestHost_UploadedCodeTakesTurns: with one processor for uploaded code,
// two guests computing for seconds, a reactor and a command, hand it on
// every slice, so a third call of uploaded code completes at once rather
// than after them; and both spins complete.
func TestHost_UploadedCodeTakesTurns(t *testing.T) {
	const spin = 3 * time.Second
	h := mustHarness(t, Config{Processors: 1}, runtime.Config{JobTimeout: 20 * time.Second, Workers: 8}, "goreactor", "gocommand")
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`) // an instance to reuse
	reactor := h.start(t, h.alice, "v/test/wasm/goreactor", `{"do":"spin","size":3000}`)
	command := h.start(t, h.bob, "v/test/wasm/gocommand", `{"do":"loop"}`)
	time.Sleep(200 * time.Millisecond) // both running
	if took := h.quickCall(t); took > spin/2 {
		t.Errorf("a call beside two spinning guests took %s: they did not hand the processor on", took)
	}
	if j := h.await(t, h.alice, reactor); j.Status != venue.StatusComplete {
		t.Errorf("the spinning reactor: %s %q", j.Status, j.Error)
	}
	if _, err := h.Cancel(h.bob, command); err != nil {
		t.Fatal(err)
	}
}

// TestHost_OwnCodeTakesNoToken: the venue's own operations run while
// uploaded code has every processor it may use; uploaded code waits for
// one, under its deadline.
func TestHost_OwnCodeTakesNoToken(t *testing.T) {
	h := mustHarness(t, Config{Processors: 1}, runtime.Config{JobTimeout: 2 * time.Second}, "goreactor")
	warm(t, h)
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
	h.host.gate.acquire(nil)
	h.mustComplete(t, h.alice, "v/test/tb/add", `{"a":1,"b":2}`)
	if msg := h.mustFail(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`); msg != "Job timed out after 2s" {
		t.Errorf("uploaded code without a processor: %q", msg)
	}
	h.host.gate.release()
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
}

// TestHost_OwnLongCodeTakesTurns: a call of the venue's own code that
// computes past a slice (an input built to be costly) takes turns with
// uploaded code from then on: while a token is held elsewhere, a spin of
// 300 ms does not end; once it is free, it does.
func TestHost_OwnLongCodeTakesTurns(t *testing.T) {
	h := mustHarness(t, Config{Processors: 1}, runtime.Config{JobTimeout: 20 * time.Second}, "goreactor")
	warm(t, h)
	h.host.gate.acquire(nil)
	spin := h.start(t, h.alice, "v/test/tb/add", `{"do":"spin","size":300}`)
	time.Sleep(1500 * time.Millisecond)
	if j, err := h.Job(h.alice, spin); err != nil || j.Status.Terminal() {
		t.Fatalf("the spin ended while the only token was held elsewhere: %+v, %v", j, err)
	}
	h.host.gate.release()
	if j := h.await(t, h.alice, spin); j.Status != venue.StatusComplete {
		t.Errorf("the spin: %s %q", j.Status, j.Error)
	}
}

// TestHost_WaitsGiveTheTokenBack: a guest waiting in the host, asleep or
// on an HTTP answer, holds no processor: with one for uploaded code,
// another call completes while it waits.
func TestHost_WaitsGiveTheTokenBack(t *testing.T) {
	const wait = 3 * time.Second
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
		}
		w.Write([]byte(`{}`))
	}))
	defer slow.Close()
	h := mustHarness(t, Config{Processors: 1}, runtime.Config{JobTimeout: 20 * time.Second,
		Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}}, "goreactor")
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
	for _, tc := range []struct{ name, input string }{
		{"asleep", fmt.Sprintf(`{"do":"sleep","size":%d}`, wait.Milliseconds())},
		{"on HTTP", `{"do":"host","reqs":[{"fn":"http.request","url":"` + slow.URL + `"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waiter := h.start(t, h.bob, "v/test/wasm/goreactor", tc.input)
			time.Sleep(200 * time.Millisecond)
			if took := h.quickCall(t); took > wait/2 {
				t.Errorf("a call beside a guest waiting in the host took %s: the waiter kept the processor", took)
			}
			if j := h.await(t, h.bob, waiter); j.Status != venue.StatusComplete {
				t.Errorf("the waiter: %s %q", j.Status, j.Error)
			}
		})
	}
}

// quickCall returns how long a quick call of uploaded code takes.
func (h *harness) quickCall(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"a":1,"b":2}`)
	return time.Since(start)
}

// start invokes op without waiting and returns the job's id.
func (h *harness) start(t *testing.T, ctx context.Context, op, input string) venue.JobID {
	t.Helper()
	j, err := h.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input)})
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// await waits for the job id to end.
func (h *harness) await(t *testing.T, ctx context.Context, id venue.JobID) *venue.Job {
	t.Helper()
	j, err := h.Await(ctx, id, time.Minute)
	if err != nil || !j.Status.Terminal() {
		t.Fatalf("job %s did not end: %v", id, err)
	}
	return j
}

// TestHost_NoTurnKeepsTheInstance: a call whose deadline passes while it
// waits for a processor ran no guest code, so its instance serves the
// next call (an audit saw each such call throw a healthy one away, which
// under load meant another instance and _initialize, which need a turn
// too), also when its input would have grown the instance's buffer.
func TestHost_NoTurnKeepsTheInstance(t *testing.T) {
	h := mustHarness(t, Config{Processors: 1}, runtime.Config{JobTimeout: time.Second}, "goreactor")
	const count = `{"do":"count"}`
	calls := func() int {
		var out struct{ Calls int }
		if err := json.Unmarshal([]byte(h.mustComplete(t, h.alice, "v/test/wasm/goreactor", count)), &out); err != nil {
			t.Fatal(err)
		}
		return out.Calls
	}
	before := calls()
	h.host.gate.acquire(nil)
	for _, in := range []string{`{"a":1}`, `{"text":"` + strings.Repeat("x", 200<<10) + `"}`} {
		if msg := h.mustFail(t, h.alice, "v/test/wasm/goreactor", in); msg != "Job timed out after 1s" {
			t.Errorf("without a processor: %q", msg)
		}
	}
	h.host.gate.release()
	if after := calls(); after != before+1 {
		t.Errorf("the instance had served %d calls, and then %d: the calls that got no turn threw it away", before, after)
	}
}
