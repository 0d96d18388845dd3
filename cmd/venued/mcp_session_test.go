package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMCP_Sessions checks what the direct tools/call path must keep of
// the SDK's sessions: calls on it keep a session alive, an idle session is
// closed, and another caller cannot call tools on a session it did not
// open.
func TestMCP_Sessions(t *testing.T) {
	m := MustRunMain(t, "", func(c *Config) { c.MCP.SessionTimeout = "1s" })
	c := newClient(m)
	sid := mcpInit(t, c)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w/none"}}}`

	t.Run("calls keep the session alive", func(t *testing.T) {
		for range 8 { // 1.6 s in all, longer than the timeout
			time.Sleep(200 * time.Millisecond)
			if r := mcpPost(t, c, sid, call); r.status != http.StatusOK || !strings.Contains(string(r.body), `"exists\":false`) {
				t.Fatalf("tools/call: %d %s", r.status, r.body)
			}
		}
	})
	t.Run("another caller cannot call on it", func(t *testing.T) {
		other, _ := asUser(t, m)
		if r := mcpPost(t, other, sid, call); r.status != http.StatusForbidden {
			t.Fatalf("got %d %s, want 403", r.status, r.body)
		}
	})
	t.Run("an idle session is closed", func(t *testing.T) {
		time.Sleep(2500 * time.Millisecond) // the timeout, and the reaper's next look
		if r := mcpPost(t, c, sid, call); r.status != http.StatusNotFound {
			t.Fatalf("the session was still open 2.5 s after its last use: %d %s", r.status, r.body)
		}
	})
}

func TestMCPConfig_Durations(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  MCPConfig
		ok   bool
	}{
		{"defaults", MCPConfig{}, true},
		{"set", MCPConfig{BridgeTimeout: "5s", SessionTimeout: "1h"}, true},
		{"not a duration", MCPConfig{SessionTimeout: "soon"}, false},
		{"negative", MCPConfig{SessionTimeout: "-1m"}, false},
		{"zero bridge timeout", MCPConfig{BridgeTimeout: "0s"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err1 := tc.cfg.bridgeTimeout()
			_, err2 := tc.cfg.sessionTimeout()
			if ok := err1 == nil && err2 == nil; ok != tc.ok {
				t.Fatalf("errors %v, %v; want ok %v", err1, err2, tc.ok)
			}
		})
	}
}

func TestMCPConfig_IncludePathPrefixes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prefixes []string
		path     string
		want     bool
	}{
		{"default: the catalog", nil, "v/ops/core/read", true},
		{"default: not the test operations", nil, "v/test/ops/echo", false},
		{"added", []string{"v/ops/", "v/test/ops"}, "v/test/ops/echo", true},
		{"at a segment boundary", []string{"v/ops/core"}, "v/ops/corex/read", false},
		{"narrowed", []string{"v/ops/core/"}, "v/ops/agent/create", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (MCPConfig{IncludePathPrefixes: tc.prefixes}).includes(tc.path); got != tc.want {
				t.Fatalf("includes(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	for _, bad := range []string{"w/ops/", "v/", "", "ops"} {
		if err := (MCPConfig{IncludePathPrefixes: []string{bad}}).validatePrefixes(); err == nil {
			t.Errorf("prefix %q was accepted", bad)
		}
	}
}
