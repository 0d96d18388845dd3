// Command bodyflood measures what many large request bodies at once cost a
// running venue: it opens n connections, each sending a request whose body
// of size bytes (JSON whitespace, then one byte held back for -hold) it
// declares and sends, and reports the venue's peak resident memory and how
// each request was answered.
//
//	go run ./tools/bodyflood -pid $(pgrep -f 'venued') [-addr 127.0.0.1:8080] [-n 400] [-size 16777216] [-hold 0s]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

type options struct {
	addr, path string
	n, size    int
	hold       time.Duration
	pid        int
}

func main() {
	var o options
	flag.StringVar(&o.addr, "addr", "127.0.0.1:8080", "the venue's address")
	flag.StringVar(&o.path, "path", "/api/v1/invoke", "the route to send the bodies to")
	flag.IntVar(&o.n, "n", 100, "connections, each sending one body")
	flag.IntVar(&o.size, "size", 16<<20, "bytes in each body")
	flag.DurationVar(&o.hold, "hold", 0, "how long each connection holds back its body's last byte")
	flag.IntVar(&o.pid, "pid", 0, "the venue's process id, to follow its resident memory")
	flag.Parse()
	if o.pid == 0 || o.size < 2 {
		fmt.Fprintln(os.Stderr, "bodyflood: -pid is required, and -size must be at least 2")
		os.Exit(2)
	}
	stop := make(chan struct{})
	peak := make(chan int64)
	go followRSS(o.pid, stop, peak)
	start := time.Now()
	answers := flood(o)
	close(stop)
	fmt.Printf("%d bodies of %d bytes in %s; peak RSS %d MB\n", o.n, o.size, time.Since(start).Round(time.Millisecond), <-peak>>20)
	report(answers)
}

// flood sends the bodies at once and returns each answer's first line.
func flood(o options) []string {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers []string
	)
	for range o.n {
		wg.Go(func() {
			a := send(o)
			mu.Lock()
			answers = append(answers, a)
			mu.Unlock()
		})
	}
	wg.Wait()
	return answers
}

// send sends one body and returns the status and the start of the answer.
func send(o options) string {
	c, err := net.Dial("tcp", o.addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", o.path, o.addr, o.size)
	chunk := []byte(strings.Repeat(" ", 1<<20))
	for left := o.size - 1; left > 0; {
		k := min(left, len(chunk))
		if _, err := c.Write(chunk[:k]); err != nil {
			break // the venue answered early and closed; read what it said
		}
		left -= k
	}
	time.Sleep(o.hold)
	c.Write([]byte("}"))
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return fmt.Sprintf("%d %.70s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// followRSS samples pid's resident memory until stop, then sends the peak.
func followRSS(pid int, stop <-chan struct{}, peak chan<- int64) {
	var max int64
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if rss := residentBytes(pid); rss > max {
			max = rss
		}
		select {
		case <-t.C:
		case <-stop:
			peak <- max
			return
		}
	}
}

// residentBytes reads VmRSS from /proc; 0 if it cannot.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// report prints how many requests got each answer, the most common first.
func report(answers []string) {
	count := map[string]int{}
	for _, a := range answers {
		count[a]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return count[keys[i]] > count[keys[j]] })
	for _, k := range keys {
		fmt.Printf("%6d  %s\n", count[k], k)
	}
}
