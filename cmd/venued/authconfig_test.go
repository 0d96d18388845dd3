package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestConfig_AnonymousBehindProxy: anonymous callers get write only when
// the venue is loopback on both ends, its listener and its public URL; a
// loopback listener behind a reverse proxy serving a public URL is reachable
// from anywhere.
func TestConfig_AnonymousBehindProxy(t *testing.T) {
	for _, tc := range []struct{ name, listen, url, set, want string }{
		{"loopback, default url", "127.0.0.1:8080", "", "", "write"},
		{"loopback url by name", "127.0.0.1:8080", "http://localhost:8080", "", "write"},
		{"loopback url on another port", "127.0.0.1:8080", "http://127.0.0.1:9000/venue", "", "write"},
		{"ipv6 loopback", "[::1]:8080", "http://[::1]:8080", "", "write"},
		{"behind a proxy", "127.0.0.1:8080", "https://venue.example.com", "", "invoke"},
		{"behind a proxy on a private address", "localhost:8080", "http://10.0.0.5:8080", "", "invoke"},
		{"public listener, loopback url", "0.0.0.0:8080", "http://127.0.0.1:8080", "", "invoke"},
		{"a url that does not parse is not loopback", "127.0.0.1:8080", "http://[bad", "", "invoke"},
		{"configured write wins", "127.0.0.1:8080", "https://venue.example.com", "write", "write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			c.Listen, c.URL, c.Auth.Anonymous = tc.listen, tc.url, tc.set
			if got := c.anonymousLevel(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestAccess_AnonymousBehindProxy: a venue on a loopback listener with a
// public URL refuses anonymous writes end to end, and says at start which
// level is in effect and why.
func TestAccess_AnonymousBehindProxy(t *testing.T) {
	var logs syncBuffer // the venue logs from its own goroutines too (a compile's end)
	cfg := defaultConfig()
	cfg.Listen, cfg.URL = "127.0.0.1:0", "https://venue.example.com"
	on := true
	cfg.TestOps = &on // off by default behind a proxy
	m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	anon := newClient(m)
	for _, r := range []reply{
		anon.do(t, "PUT", "/api/v1/secrets/K", `{"value": "v-value"}`),
		anon.run(t, "v/ops/core/write", `{"path": "w/x", "value": 1}`),
	} {
		if r.status != 401 || !strings.Contains(r.errorText(t), "anonymous callers may not") {
			t.Fatalf("anonymous write behind a proxy: %d %s", r.status, r.body)
		}
	}
	mustOK(t, anon.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo"}`))
	line := ""
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, "anonymous access") {
			line = l
		}
	}
	if !strings.Contains(line, "allows=invoke") || strings.Count(line, "level=") != 1 || !strings.Contains(line, "https://venue.example.com") {
		t.Fatalf("no startup line saying anonymous callers read and invoke, and why:\n%s", logs.String())
	}
}
