// Command mcpbench measures MCP tools/call throughput of the venue's /mcp
// against @modelcontextprotocol/server-everything's echo tool, in one run
// on one machine: both servers are started here on loopback, driven by the
// same client, in interleaved rounds, and the median round of each is
// reported.
//
// The venue's cheap tool is grid_job_status (a native operation: one job
// read, recorded as a job of its own); core_read (a Wasm operation reading
// the lattice) is measured beside it.
//
//	make build && (cd tools/mcpcheck && npm ci --ignore-scripts)
//	go run ./tools/mcpbench                       # 16 sessions, 3 rounds of 5 s each, raw client
//	go run ./tools/mcpbench -client lean          # minimal JSON-RPC over Go's net/http client instead
//	go run ./tools/mcpbench -client sdk           # the official Go SDK's client instead
//	go run ./tools/mcpbench -c 32 -d 8s -rounds 5 -profile /tmp/venued-mcp.pprof
//
// Each round also prints the client's own CPU per call: the servers share
// the machine's two cores with it, so the raw client, like wrk, is the one
// that measures the servers rather than itself.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	venued := flag.String("venued", "bin/venued", "the venued binary (make build)")
	tools := flag.String("tools", "tools/mcpcheck/node_modules/.bin", "where server-everything is installed")
	conc := flag.Int("c", 16, "concurrent MCP sessions")
	dur := flag.Duration("d", 5*time.Second, "length of one measured round")
	rounds := flag.Int("rounds", 3, "rounds per server, interleaved")
	client := flag.String("client", "raw", "MCP client: raw (HTTP/1.1 by hand, like wrk), lean (minimal JSON-RPC over net/http) or sdk (the official Go SDK)")
	prof := flag.String("profile", "", "save a CPU profile of venued over its first measured round to this file")
	baseline := flag.String("baseline", "", "another venued binary (an earlier build) to measure in the same run")
	flag.Parse()
	if *client != "raw" && *client != "lean" && *client != "sdk" {
		log.Fatalf("-client %q: want raw, lean or sdk", *client)
	}

	base, stopVenue := start(*venued, []string{"VENUE_LOG_LEVEL=warn", "VENUE_PPROF=" + strconv.FormatBool(*prof != "")},
		"--listen", "127.0.0.1:"+freePort())
	defer stopVenue()
	port := freePort()
	_, stopEv := start(filepath.Join(*tools, "mcp-server-everything"), []string{"PORT=" + port,
		"PATH=" + *tools + string(os.PathListSeparator) + os.Getenv("PATH")}, "streamableHttp")
	defer stopEv()
	evURL := "http://127.0.0.1:" + port + "/mcp"
	waitUp(base + "/mcp")
	waitUp(evURL)

	targets := venueTargets("venue", base)
	if *baseline != "" {
		old, stopOld := start(*baseline, []string{"VENUE_LOG_LEVEL=warn"}, "--listen", "127.0.0.1:"+freePort())
		defer stopOld()
		waitUp(old + "/mcp")
		targets = append(targets, venueTargets("baseline", old)...)
	}
	targets = append(targets, target{name: "server-everything, echo", url: evURL, tool: "echo", args: map[string]any{"message": "bench"}})
	fmt.Printf("%d %s-client sessions, %s per round, %d rounds, GOMAXPROCS of venued = CPUs\n", *conc, *client, *dur, *rounds)
	results := make([][]float64, len(targets))
	for _, t := range targets {
		run(t, *client, *conc, time.Second) // warm-up
	}
	for r := 0; r < *rounds; r++ {
		for i, t := range targets {
			if r == 0 && i == 0 && *prof != "" {
				done := profile(base, *prof, *dur)
				defer func() { <-done }()
			}
			rate := run(t, *client, *conc, *dur)
			results[i] = append(results[i], rate)
			fmt.Printf("round %d  %-29s %8.0f calls/s  (client CPU %.1f µs per call)\n", r+1, t.name, rate, float64(lastClientCPU.Nanoseconds())/1000)
		}
	}
	med := make([]float64, len(targets))
	for i := range targets {
		slices.Sort(results[i])
		med[i] = results[i][len(results[i])/2]
		fmt.Printf("median   %-29s %8.0f calls/s\n", targets[i].name, med[i])
	}
	ev := med[len(med)-1]
	for i := range len(targets) - 1 {
		fmt.Printf("ratio %s / server-everything: %.2f\n", targets[i].name, med[i]/ev)
	}
	fmt.Println("target: the cheap tool (grid_job_status) >= 3")
}

// lastClientCPU is the CPU this process (the client) spent per call in the
// last run: both servers share the machine's cores with it, so a client
// that costs much measures itself more than them.
var lastClientCPU time.Duration

// selfCPU is the CPU time this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// venueTargets are the tools measured on the venue at base.
func venueTargets(name, base string) []target {
	return []target{
		{name: name + ", grid_job_status", url: base + "/mcp", tool: "grid_job_status", args: map[string]any{"id": aJob(base)}},
		{name: name + ", core_read", url: base + "/mcp", tool: "core_read", args: map[string]any{"path": "w/bench"}},
	}
}

type target struct {
	name, url, tool string
	args            map[string]any
}

// run drives t from conc sessions for d and returns completed calls per
// second. Every call must succeed.
func run(t target, client string, conc int, d time.Duration) float64 {
	var calls atomic.Int64
	var wg sync.WaitGroup
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}}
	sessions := make([]session, conc)
	for i := range sessions {
		s, err := dial(client, t.url, hc)
		if err != nil {
			log.Fatalf("%s: connect: %v", t.name, err)
		}
		sessions[i] = s
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start, cpu0 := time.Now(), selfCPU()
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := s.call(context.Background(), t.tool, t.args); err != nil {
					log.Fatalf("%s: call: %v", t.name, err)
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	rate := float64(calls.Load()) / time.Since(start).Seconds()
	if n := calls.Load(); n > 0 {
		lastClientCPU = (selfCPU() - cpu0) / time.Duration(n)
	}
	for _, s := range sessions {
		s.close()
	}
	return rate
}

// aJob invokes core_read once over REST and returns its job's id, for
// grid_job_status to read.
func aJob(base string) string {
	body := []byte(`{"operation":"v/ops/core/read","input":{"path":"w/bench"},"wait":true}`)
	resp, err := http.Post(base+"/api/v1/invoke", "application/json", bytes.NewReader(body))
	if err != nil {
		log.Fatalf("invoke: %v", err)
	}
	defer resp.Body.Close()
	var rec struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rec); err != nil || rec.ID == "" {
		log.Fatalf("invoke: status %s, no job id (%v)", resp.Status, err)
	}
	return rec.ID
}
