package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runLogged starts a venue configured by opts whose log, at debug, is
// returned; Close ends it when the test does.
func runLogged(t *testing.T, store string, opts ...func(*Config)) (*Main, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	cfg := defaultConfig()
	cfg.Listen, cfg.Store = "127.0.0.1:0", store
	for _, o := range opts {
		o(&cfg)
	}
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, logs
}

// TestUnknownEnv names the VENUE_* variables the venue does not read, so
// that a misspelt one is not silently left at its default.
func TestUnknownEnv(t *testing.T) {
	got := unknownEnv([]string{"HOME=/root", "VENUE_LISTEN=127.0.0.1:1", "VENUE_MAX_BODY_SIZE=5", "VENUE_AUTH_ANONYMOUS=none",
		"VENUE_TEST_POSTGRES=postgres://x", "VENUE_=x"})
	if want := []string{"VENUE_", "VENUE_AUTH_ANONYMOUS", "VENUE_MAX_BODY_SIZE"}; !slices.Equal(got, want) {
		t.Fatalf("unknownEnv = %q, want %q", got, want)
	}
}

// TestEnvKeysAreReadAndDocumented keeps envKeys, the variables applyEnv
// reads and README's configuration table one list.
func TestEnvKeysAreReadAndDocumented(t *testing.T) {
	read := map[string]bool{}
	cfg := defaultConfig()
	if err := applyEnv(&cfg, func(k string) string { read[k] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, k := range regexp.MustCompile("`(VENUE_[A-Z_]+)`").FindAllStringSubmatch(string(readme), -1) {
		documented[k[1]] = true
	}
	for k := range envKeys {
		testOnly := k == "VENUE_TEST_POSTGRES" || k == "VENUE_BENCH_POSTGRES" || k == "VENUE_BENCH_STORE"
		if !testOnly && !read[k] {
			t.Errorf("%s is in envKeys but applyEnv does not read it", k)
		}
		if !testOnly && !documented[k] {
			t.Errorf("%s is read but README does not name it", k)
		}
	}
	for k := range read {
		if !envKeys[k] {
			t.Errorf("applyEnv reads %s, which envKeys lacks (the venue would warn that it is unknown)", k)
		}
	}
}

// TestMain_StartAndStopLogs checks what the operator reads when the venue
// starts and stops: where its docs are, why it stops, and how many jobs the
// stop ended.
func TestMain_StartAndStopLogs(t *testing.T) {
	logs := &syncBuffer{}
	cfg := defaultConfig()
	cfg.Listen = "127.0.0.1:0"
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	ctx, stop := context.WithCancelCause(context.Background())
	done := make(chan int)
	go func() {
		done <- serve(ctx, m, func() {
			invokeJob(t, newClient(m), `{"operation": "v/test/ops/never"}`)
			stop(errors.New("terminated signal received"))
		})
	}()
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d\n%s", code, logs)
	}
	for _, want := range []string{"docs=http://" + m.Addr + "/swagger", "version=0.5.0", `msg="shutting down" why="terminated signal received"`,
		`msg="stopping the jobs queued, running or waiting for a reply here: each ends FAILED" count=1`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}
}

// TestMain_LogsSideDoors checks that requests to the doors beside the REST
// one are logged too: a sign-in provider that cannot be reached answers 502,
// which the operator must see.
func TestMain_LogsSideDoors(t *testing.T) {
	m, logs := runLogged(t, "", func(c *Config) {
		c.Auth.OAuth = map[string]OAuthConfig{"corp": {Issuer: "http://127.0.0.1:1", ClientID: "venue", ClientSecret: "cs-never-logged"}}
	})
	c := newClient(m)
	if r := c.do(t, "GET", "/auth/corp", nil); r.status != 502 {
		t.Fatalf("sign-in with an unreachable provider: %d %s", r.status, r.body)
	}
	c.do(t, "GET", "/login", nil)
	c.do(t, "GET", "/.well-known/mcp.json", nil)
	c.do(t, "GET", "/api/v1/status", nil)
	out := logs.String()
	for _, want := range []string{"level=ERROR msg=request method=GET path=/auth/corp status=502", "path=/login status=200",
		"path=/.well-known/mcp.json status=200"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "path=/api/v1/status "); n != 1 {
		t.Errorf("a REST request logged %d times:\n%s", n, out)
	}
	if strings.Contains(out, "cs-never-logged") {
		t.Errorf("the client secret is in the log:\n%s", out)
	}
}

// TestMain_LogsTheCauseOfInternalErrors checks that a request answered
// "Internal error" (here: the store is gone) logs what the error was,
// which the client is not told.
func TestMain_LogsTheCauseOfInternalErrors(t *testing.T) {
	m, logs := runLogged(t, "")
	m.store.Close()
	c := newClient(m)
	for _, path := range []string{"/api/v1/status", "/api/v1/jobs/0x01a22750bca500077259aa63bdfd1851/sse"} {
		r := c.do(t, "GET", path, nil)
		if r.status != 500 || r.errorText(t) != "Internal error" {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		line := regexp.MustCompile(`(?m)^.*path=` + regexp.QuoteMeta(path) + ` status=500.*$`).FindString(logs.String())
		if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "err=") {
			t.Errorf("%s: the request's log line %q does not say what failed:\n%s", path, line, logs)
		}
	}
}

// TestMain_WarnsWhenServedAsAnotherDID restarts a durable store under
// another url: its anonymous caller's data then seems gone, which the log
// must say once, with the DID it was served as.
func TestMain_WarnsWhenServedAsAnotherDID(t *testing.T) {
	store := filepath.Join(t.TempDir(), "venue.db")
	start := func(url string) string {
		m, logs := runLogged(t, store, func(c *Config) { c.URL = url })
		m.Close()
		return logs.String()
	}
	if out := start("http://127.0.0.1:18001"); strings.Contains(out, "level=WARN") {
		t.Fatalf("a first start warns:\n%s", out)
	}
	out := start("http://127.0.0.1:18002")
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "was=did:web:127.0.0.1%3A18001") || !strings.Contains(out, "VENUE_URL") {
		t.Fatalf("no warning naming the DID the store was served as, and VENUE_URL:\n%s", out)
	}
	if out := start("http://127.0.0.1:18002"); strings.Contains(out, "level=WARN") {
		t.Fatalf("the warning repeats at the next start under the same url:\n%s", out)
	}
}

// TestForceOnSecondSignal: the first signal only begins the stop; the
// second exits at once with code 1, saying why, as an operator pressing
// Ctrl-C again expects.
func TestForceOnSecondSignal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		signals  []os.Signal
		wantExit bool
	}{
		{"one signal stops the venue normally", []os.Signal{os.Interrupt}, false},
		{"a second signal exits at once", []os.Signal{os.Interrupt, os.Interrupt}, true},
		{"SIGTERM after SIGINT counts as the second", []os.Signal{os.Interrupt, syscall.SIGTERM}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &syncBuffer{}
			signals := make(chan os.Signal, 2)
			for _, s := range tc.signals {
				signals <- s
			}
			exited := make(chan int, 1)
			go forceOnSecondSignal(signals, slog.New(slog.NewTextHandler(logs, nil)), func(code int) { exited <- code })
			select {
			case code := <-exited:
				if !tc.wantExit || code != 1 || !strings.Contains(logs.String(), "second signal: exiting at once") {
					t.Fatalf("exit %d, log %s", code, logs)
				}
			case <-time.After(200 * time.Millisecond):
				if tc.wantExit {
					t.Fatal("no exit after the second signal")
				}
			}
		})
	}
}
