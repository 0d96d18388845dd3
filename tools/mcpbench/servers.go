package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// profile saves a CPU profile of venued over the next d (its first
// measured round) to file.
func profile(base, file string, d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, max(1, int(d.Seconds()))))
		if err != nil {
			log.Printf("profile: %v", err)
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(file)
		if err != nil {
			log.Printf("profile: %v", err)
			return
		}
		defer f.Close()
		io.Copy(f, resp.Body)
	}()
	return done
}

// start runs bin with args and extra environment; it returns the base URL
// named by a --listen argument, if any, and a function that stops it.
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
