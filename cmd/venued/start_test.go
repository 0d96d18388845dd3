package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// startFails runs a venue configured by cfg and returns why it did not start.
func startFails(t *testing.T, cfg Config) error {
	t.Helper()
	m := &Main{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	err := m.Run(context.Background())
	m.Close()
	if err == nil {
		t.Fatal("the venue started")
	}
	return err
}

func TestMain_StoreThatIsADirectory(t *testing.T) {
	cfg := defaultConfig()
	cfg.Listen, cfg.Store = "127.0.0.1:0", t.TempDir()
	err := startFails(t, cfg)
	msg := err.Error()
	if !strings.Contains(msg, "is a directory") || !strings.Contains(msg, "venue.db") {
		t.Fatalf("%q does not say the store is a directory and what to give instead", msg)
	}
	if strings.Count(msg, "open store") > 1 {
		t.Fatalf("%q repeats its prefix", msg)
	}
}

// TestMain_PostgresThatIsDown names the PostgreSQL the venue could not
// reach, without its password.
func TestMain_PostgresThatIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg := defaultConfig()
	cfg.Listen, cfg.Store, cfg.StoreWait = "127.0.0.1:0", "postgres://venue:s3cret@"+addr+"/venue?sslmode=disable", "0"
	msg := startFails(t, cfg).Error()
	if !strings.Contains(msg, "open store") || !strings.Contains(msg, "postgres://venue:xxxxx@"+addr+"/venue") || strings.Contains(msg, "s3cret") {
		t.Fatalf("%q does not name the store it could not reach, or quotes its password", msg)
	}
}

// TestMain_PublicURLOfAnUnspecifiedAddress listens on every interface
// without a url: the venue must not derive its DID from 0.0.0.0 or [::],
// and must say how to set the address clients use. The start log names
// the host as the operator did: Go reports 0.0.0.0 as [::].
func TestMain_PublicURLOfAnUnspecifiedAddress(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		t.Run(listen, func(t *testing.T) {
			var logs syncBuffer // the venue logs from its own goroutines too
			cfg := defaultConfig()
			cfg.Listen = listen
			m := &Main{Config: cfg, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
			if err := m.Run(context.Background()); err != nil {
				t.Skipf("cannot listen on %s here: %v", listen, err)
			}
			defer m.Close()
			_, port, _ := net.SplitHostPort(m.Addr)
			c := &client{base: "http://127.0.0.1:" + port, http: http.DefaultClient}
			var st struct{ DID, URL string }
			c.do(t, "GET", "/api/v1/status", nil).json(t, &st)
			if st.URL != "http://localhost:"+port || st.DID != "did:web:localhost%3A"+port {
				t.Fatalf("url %s, did %s", st.URL, st.DID)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "VENUE_URL") {
				t.Fatalf("no warning naming VENUE_URL in the log:\n%s", logs.String())
			}
			if want := "addr=" + strings.TrimSuffix(listen, "0") + port + " "; !strings.Contains(logs.String(), want) {
				t.Fatalf("the start log does not say %q:\n%s", want, logs.String())
			}
		})
	}
}

// TestREST_DIDOfAPathPrefixedURL serves a venue whose public URL has a
// path: its did:web DID then resolves at <url>/did.json, which a proxy in
// front of the venue passes on as /did.json (or unchanged).
func TestREST_DIDOfAPathPrefixedURL(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.URL = "http://example.com/venue" })
	c := newClient(m)
	for _, path := range []string{"/did.json", "/venue/did.json"} {
		var doc struct {
			ID      string
			Service []struct{ ServiceEndpoint string }
		}
		r := c.do(t, "GET", path, nil)
		if r.json(t, &doc); r.status != 200 || doc.ID != "did:web:example.com:venue" ||
			len(doc.Service) != 1 || doc.Service[0].ServiceEndpoint != "http://example.com/venue/api/v1" {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
}
