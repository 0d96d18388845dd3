package main

import (
	goruntime "runtime"
	"strings"
	"testing"
)

func TestConfig_TestOpsAndWorkers(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		name   string
		listen string
		url    string
		set    *bool
		want   bool
	}{
		{"on for a loopback venue", "127.0.0.1:8080", "", nil, true},
		{"on with a loopback url", "127.0.0.1:8080", "http://localhost:8080", nil, true},
		{"off beyond loopback", "0.0.0.0:8080", "", nil, false},
		{"off behind a proxy serving the world", "127.0.0.1:8080", "https://venue.example.com", nil, false},
		{"switched on beyond loopback", ":8080", "", &on, true},
		{"switched off on loopback", "localhost:8080", "", &off, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := defaultConfig()
			c.Listen, c.URL, c.TestOps = tc.listen, tc.url, tc.set
			if got := c.testOps(); got != tc.want {
				t.Fatalf("testOps() = %v, want %v", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		workers, set, want int
	}{{0, 0, 48}, {8, 0, 6}, {1, 0, 1}, {8, 8, 8}, {8, 20, 20}} {
		c := defaultConfig()
		c.Workers, c.CallerWorkers = tc.workers, tc.set
		if got := c.callerWorkers(); got != tc.want {
			t.Errorf("workers %d, callerWorkers %d: got %d, want %d", tc.workers, tc.set, got, tc.want)
		}
	}
	procs := goruntime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name        string
		memMiB, set int
		want        int
	}{
		{"two per processor, within a GiB of guest memory", 0, 0, max(2, min(2*procs, 16))},
		{"large instances, fewer of them", 512, 0, 2},
		{"small instances, as many as the processors take", 4, 0, max(2, 2*procs)},
		{"set", 64, 30, 30},
	} {
		c := defaultConfig()
		c.WasmMemoryMiB, c.UploadedWorkers = tc.memMiB, tc.set
		if got := c.uploadedWorkers(); got != tc.want {
			t.Errorf("%s: uploadedWorkers() = %d, want %d", tc.name, got, tc.want)
		}
	}
	cfg, err := loadConfig(nil, func(k string) string {
		return map[string]string{"VENUE_TEST_OPS": "false", "VENUE_CALLER_WORKERS": "5", "VENUE_UPLOADED_WORKERS": "7", "VENUE_UPLOADED_PROCESSORS": "3"}[k]
	})
	if err != nil || cfg.TestOps == nil || *cfg.TestOps || cfg.CallerWorkers != 5 || cfg.UploadedWorkers != 7 || cfg.UploadedProcessors != 3 {
		t.Fatalf("%v %+v", err, cfg)
	}
	for env, want := range map[string]string{"VENUE_TEST_OPS": "want true or false", "VENUE_CALLER_WORKERS": "want a positive whole number", "VENUE_UPLOADED_PROCESSORS": "want a positive whole number"} {
		if _, err := loadConfig(nil, func(k string) string { return map[string]string{env: "lots"}[k] }); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=lots: %v", env, err)
		}
	}
}

// TestREST_TestOpsSwitch: the engine's test operations, which anyone may
// invoke, exist only where testOps says.
func TestREST_TestOpsSwitch(t *testing.T) {
	off := false
	c := newClient(MustRunMain(t, "", func(c *Config) { c.TestOps = &off }))
	r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/never"}`)
	if msg := r.errorText(t); r.status != 400 || !strings.Contains(msg, "Cannot resolve operation: v/test/ops/never") {
		t.Fatalf("%d %s", r.status, msg)
	}
	if r := c.do(t, "GET", "/api/v1/values/read?path=v/test", nil); !strings.Contains(string(r.body), `"exists":false`) {
		t.Fatalf("v/test is still there: %s", r.body)
	}
	c = newClient(MustRunMain(t, ""))
	if r := c.run(t, "v/test/ops/echo", `{"here": true}`); r.status != 200 {
		t.Fatalf("a loopback venue has no test operations: %d %s", r.status, r.body)
	}
}
