package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestPprof: the profiler's doors exist only when configured, and its
// execution trace (the one view of how long goroutines wait to run, which
// CPU profiles do not show) is among them.
func TestPprof(t *testing.T) {
	for _, tc := range []struct {
		name   string
		on     bool
		path   string
		status int
		prefix string
	}{
		{"off: no index", false, "/debug/pprof/", http.StatusNotFound, `{"error":`},
		{"off: no trace", false, "/debug/pprof/trace?seconds=0.05", http.StatusNotFound, `{"error":`},
		{"on: index", true, "/debug/pprof/", http.StatusOK, "<html>"},
		{"on: trace", true, "/debug/pprof/trace?seconds=0.05", http.StatusOK, "go 1."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(MustRunMain(t, "", func(c *Config) { c.Pprof = tc.on }))
			r := c.do(t, "GET", tc.path, nil)
			if r.status != tc.status || !strings.HasPrefix(string(r.body), tc.prefix) {
				t.Fatalf("GET %s = %d %.40q, want %d %q...", tc.path, r.status, r.body, tc.status, tc.prefix)
			}
		})
	}
}
