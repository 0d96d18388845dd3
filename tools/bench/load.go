package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
)

// result is one row of the report.
type result struct {
	name     string
	requests int
	rate     float64 // per second
	p50, p99 time.Duration
	cpu      time.Duration // the server's CPU time per request (0: not measured)
	load     time.Duration // the load generator's CPU time per request
	note     string
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }
func numCPU() int   { return runtime.NumCPU() }

// load drives POST url with body from o.clients connections for warm-up
// plus duration and measures the second part, including the CPU time the
// server process pid spends on it. check vets each response.
// Each client is a minimal HTTP/1.1 keep-alive connection (see rawClient),
// so the load generator costs little CPU and the servers get the machine.
func load(ctx context.Context, o options, name, url string, body []byte, pid int, check func(int, []byte) error) (result, error) {
	start := time.Now()
	measureFrom, end := start.Add(o.warmup), start.Add(o.warmup+o.duration)
	cpu, self := sampleCPU(pid, measureFrom, end), sampleCPU(os.Getpid(), measureFrom, end)
	var (
		mu       sync.Mutex
		lat      []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	for range o.clients {
		wg.Go(func() {
			c, err := dial(o.client, url, body)
			if err != nil {
				fail(err)
				return
			}
			defer c.close()
			var mine []time.Duration
			for {
				t0 := time.Now()
				if t0.After(end) || ctx.Err() != nil {
					break
				}
				status, resp, err := c.post()
				if err == nil {
					err = check(status, resp)
				}
				if err != nil {
					fail(err)
					return
				}
				if t0.After(measureFrom) {
					mine = append(mine, time.Since(t0))
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if firstErr != nil {
		return result{}, fmt.Errorf("%s: %w", name, firstErr)
	}
	slices.Sort(lat)
	r := result{name: name, requests: len(lat), rate: float64(len(lat)) / o.duration.Seconds()}
	if len(lat) > 0 {
		r.p50, r.p99 = lat[len(lat)/2], lat[len(lat)*99/100]
		r.cpu, r.load = <-cpu/time.Duration(len(lat)), <-self/time.Duration(len(lat))
	}
	return r, nil
}

// sampleCPU sends the CPU time pid spends between from and to, once to has
// passed.
func sampleCPU(pid int, from, to time.Time) <-chan time.Duration {
	ch := make(chan time.Duration, 1)
	go func() {
		time.Sleep(time.Until(from))
		t0 := cpuTime(pid)
		time.Sleep(time.Until(to))
		ch <- cpuTime(pid) - t0
	}()
	return ch
}

// checkComplete accepts a 201 whose record is COMPLETE.
func checkComplete(status int, body []byte) error {
	if status != http.StatusCreated || !bytes.Contains(body, []byte(`"status":"COMPLETE"`)) {
		return fmt.Errorf("unexpected response %d %.200s", status, body)
	}
	return nil
}
