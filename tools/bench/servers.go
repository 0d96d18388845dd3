package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/lib/pq"

	"github.com/gridvenue/venue/sql/sqltest"
)

// buildVenued builds the venue binary once, as `make build` would.
func buildVenued() (string, func(), error) {
	dir, err := os.MkdirTemp("", "venue-bench")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "venued")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/venued")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build venued (run from the repository root): %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// startProcess runs a server and waits until addr answers GET probe. It
// returns the server's pid (for cpuTime) and a function that stops it.
func startProcess(addr, probe string, name string, args []string, env ...string) (int, func(), error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + probe); err == nil {
			resp.Body.Close()
			return cmd.Process.Pid, stop, nil
		}
	}
	stop()
	return 0, nil, fmt.Errorf("%s did not start on %s", name, addr)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func benchVenue(ctx context.Context, o options, name, store string) (result, error) {
	addr, err := freeAddr()
	if err != nil {
		return result{}, err
	}
	pid, stop, err := startProcess(addr, "/api/v1/status", o.venued, []string{"--listen", addr, "--store", store},
		"VENUE_LOG_LEVEL=warn", "VENUE_PPROF="+strconv.FormatBool(o.profile != ""))
	if err != nil {
		return result{}, err
	}
	defer stop()
	if o.profile != "" {
		done := profile(addr, o, name)
		defer func() { <-done }()
	}
	body := fmt.Appendf(nil, `{"operation":%q,"input":%s,"wait":true}`, o.op, o.input)
	return load(ctx, o, name, "http://"+addr+"/api/v1/invoke", body, pid, checkComplete)
}

// benchVenuePostgres runs the venue on a fresh schema of the database.
func benchVenuePostgres(ctx context.Context, o options, name string) (result, error) {
	schema, drop, err := newSchema(ctx, o.postgres)
	if err != nil {
		return result{}, err
	}
	defer drop()
	return benchVenue(ctx, o, name, sqltest.WithSearchPath(o.postgres, schema))
}

// benchBare runs a bare net/http handler that reads the request and
// answers with the same job record the venue would, in its own process.
func benchBare(ctx context.Context, o options) (result, error) {
	addr, err := freeAddr()
	if err != nil {
		return result{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	pid, stop, err := startProcess(addr, "/", self, []string{"bare", addr})
	if err != nil {
		return result{}, err
	}
	defer stop()
	body := fmt.Appendf(nil, `{"operation":%q,"input":%s,"wait":true}`, o.op, o.input)
	return load(ctx, o, "(c) bare net/http handler", "http://"+addr+"/api/v1/invoke", body, pid, checkComplete)
}

// bareRecord is a job record as the venue answers an echo invoke.
const bareRecord = `{"id":"0x01a2016ffa3a000090189b8c69e6e005","status":"COMPLETE","created":1795320445498,"updated":1795320445499,` +
	`"operation":"v/test/ops/echo","op":"v/test/ops/echo","name":"test:echo","caller":"did:web:127.0.0.1%3A8080:u:public",` +
	`"input":{"n":1,"greeting":"hello"},"output":{"n":1,"greeting":"hello"},"prev":{"id":"0x01a2016ffa3a000090189b8c69e6e005",` +
	`"status":"STARTED","created":1795320445498,"updated":1795320445499,"output":null,"prev":{"id":"0x01a2016ffa3a000090189b8c69e6e005",` +
	`"status":"PENDING","created":1795320445498,"updated":1795320445498,"output":null}}}`

func serveBare(addr string) {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			var buf [4096]byte
			for {
				if _, err := r.Body.Read(buf[:]); err != nil {
					break
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write([]byte(bareRecord))
	})
	srv := &http.Server{Addr: addr}
	go func() {
		sig := make(chan os.Signal, 1)
		notifyInterrupt(sig)
		<-sig
		srv.Close()
	}()
	srv.ListenAndServe()
}

func newSchema(ctx context.Context, dsn string) (string, func(), error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 4)
	rand.Read(b)
	schema := "bench_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("PostgreSQL at %s: %w (pass -postgres \"\" to skip)", redact(dsn), err)
	}
	return schema, func() {
		db.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		db.Close()
	}, nil
}

func redact(dsn string) string {
	if i := strings.Index(dsn, "@"); i > 0 {
		if j := strings.Index(dsn, "://"); j > 0 && j < i {
			return dsn[:j+3] + "…" + dsn[i:]
		}
	}
	return dsn
}

// profile saves a CPU profile of the venue process over the measured part
// of a run to <o.profile>-<run letter>.pprof.
func profile(addr string, o options, name string) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(o.warmup)
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(o.duration.Seconds()))
		resp, err := http.Get(url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			return
		}
		defer resp.Body.Close()
		file := fmt.Sprintf("%s-%s.pprof", o.profile, name[1:strings.IndexByte(name, ')')])
		f, err := os.Create(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			return
		}
		defer f.Close()
		io.Copy(f, resp.Body)
		fmt.Fprintln(os.Stderr, "CPU profile of", name, "in", file)
	}()
	return done
}
