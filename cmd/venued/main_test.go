package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridvenue/venue/sql/sqltest"
)

// MustRunMain starts a real venue on a loopback port over the store dsn
// and closes it when the test ends.
func MustRunMain(tb testing.TB, dsn string, opts ...func(*Config)) *Main {
	tb.Helper()
	cfg := defaultConfig()
	cfg.Listen, cfg.Store = "127.0.0.1:0", dsn
	cfg.MaxBodyBytes = 1 << 20
	cfg.MaxContentSize = 4 << 20
	for _, o := range opts {
		o(&cfg)
	}
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	if err := m.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := m.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return m
}

// reply is a response read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q is not JSON: %v", r.body, err)
	}
}

// errorText returns the "error" field of an error body, failing the test if
// the body is not exactly {"error": string}.
func (r reply) errorText(t *testing.T) string {
	t.Helper()
	var m map[string]any
	r.json(t, &m)
	msg, ok := m["error"].(string)
	if !ok || len(m) != 1 {
		t.Fatalf("error body %s is not {\"error\": \"...\"}", r.body)
	}
	return msg
}

type client struct {
	base  string
	http  *http.Client
	token string // sent as Authorization: Bearer unless a request sets its own
}

func newClient(m *Main) *client {
	return &client{base: "http://" + m.Addr, http: &http.Client{Timeout: 30 * time.Second}}
}

// do sends a request; body may be nil, a string sent as is, or []byte.
func (c *client) do(t testing.TB, method, path string, body any, header ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// forEachStore runs fn against a fresh venue on every store under test.
func forEachStore(t *testing.T, fn func(t *testing.T, c *client, m *Main), opts ...func(*Config)) {
	for _, st := range sqltest.Stores(t) {
		t.Run(st.Name, func(t *testing.T) {
			m := MustRunMain(t, st.DSN, opts...)
			fn(t, newClient(m), m)
		})
	}
}

// run posts to /api/v1/run and returns the status and body.
func (c *client) run(t testing.TB, op, input string, header ...string) reply {
	t.Helper()
	return c.do(t, "POST", "/api/v1/run", `{"operation": "`+op+`", "input": `+input+`}`, header...)
}
