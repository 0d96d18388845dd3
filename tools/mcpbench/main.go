// Command mcpbench measures MCP tools/call throughput of the venue's /mcp
// against @modelcontextprotocol/server-everything's echo tool, in one run
// on one machine: both servers are started here on loopback, driven by the
// same Go SDK client, in interleaved rounds, and the median round of each
// is reported.
//
//	make build && (cd tools/mcpcheck && npm ci --ignore-scripts)
//	go run ./tools/mcpbench                       # 16 sessions, 3 rounds of 5 s each
//	go run ./tools/mcpbench -c 32 -d 8s -rounds 5
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	venued := flag.String("venued", "bin/venued", "the venued binary (make build)")
	tools := flag.String("tools", "tools/mcpcheck/node_modules/.bin", "where server-everything is installed")
	conc := flag.Int("c", 16, "concurrent MCP sessions")
	dur := flag.Duration("d", 5*time.Second, "length of one measured round")
	rounds := flag.Int("rounds", 3, "rounds per server, interleaved")
	flag.Parse()

	venueURL, stopVenue := start(*venued, nil, "--listen", "127.0.0.1:"+freePort())
	defer stopVenue()
	port := freePort()
	evURL, stopEv := start(filepath.Join(*tools, "mcp-server-everything"), []string{"PORT=" + port,
		"PATH=" + *tools + string(os.PathListSeparator) + os.Getenv("PATH")}, "streamableHttp")
	defer stopEv()
	venueURL = venueURL + "/mcp"
	evURL = "http://127.0.0.1:" + port + "/mcp"
	waitUp(venueURL)
	waitUp(evURL)

	targets := []target{
		{name: "venue /mcp, core_read", url: venueURL, tool: "core_read", args: map[string]any{"path": "w/bench"}},
		{name: "server-everything, echo", url: evURL, tool: "echo", args: map[string]any{"message": "bench"}},
	}
	results := make([][]float64, len(targets))
	for _, t := range targets {
		run(t, *conc, time.Second) // warm-up
	}
	for r := 0; r < *rounds; r++ {
		for i, t := range targets {
			rate := run(t, *conc, *dur)
			results[i] = append(results[i], rate)
			fmt.Printf("round %d  %-26s %8.0f calls/s\n", r+1, t.name, rate)
		}
	}
	med := make([]float64, len(targets))
	for i := range targets {
		slices.Sort(results[i])
		med[i] = results[i][len(results[i])/2]
		fmt.Printf("median   %-26s %8.0f calls/s\n", targets[i].name, med[i])
	}
	fmt.Printf("ratio venue / server-everything: %.2f (target >= 3)\n", med[0]/med[1])
}

type target struct {
	name, url, tool string
	args            map[string]any
}

// run drives t from conc sessions for d and returns completed calls per
// second. Every call must succeed.
func run(t target, conc int, d time.Duration) float64 {
	var calls atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}}
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
			sess, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: t.url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
			if err != nil {
				log.Fatalf("%s: connect: %v", t.name, err)
			}
			defer sess.Close()
			for ctx.Err() == nil {
				res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: t.tool, Arguments: t.args})
				if err != nil || res.IsError {
					log.Fatalf("%s: call: %v %+v", t.name, err, res)
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(calls.Load()) / time.Since(start).Seconds()
}

func start(bin string, env []string, args ...string) (string, func()) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		log.Fatalf("start %s: %v", bin, err)
	}
	url := ""
	for i, a := range args {
		if a == "--listen" {
			url = "http://" + args[i+1]
		}
	}
	return url, func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }
}

func freePort() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

func waitUp(url string) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
	}
	log.Fatal(errors.New("server at " + url + " did not start"))
}
