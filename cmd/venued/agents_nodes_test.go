package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gridvenue/venue/sql/sqltest"
)

// TestAgents_OneRunAcrossNodes: two venue processes on one Postgres serve
// the same agent. Requests sent to both at once still run one at a time:
// every run of the scripted transition counts itself in its state, so two
// runs that overlapped would lose a count, and the state would fall behind
// the timeline, which gets an entry per run.
func TestAgents_OneRunAcrossNodes(t *testing.T) {
	dsn := sqltest.FreshSchema(t, sqltest.PostgresDSN(t, true))
	same := func(c *Config) { c.URL, c.Auth.Anonymous = "http://venue.test", "write" } // one anonymous DID on both, which may write
	nodes := []*client{newClient(MustRunMain(t, dsn, same)), newClient(MustRunMain(t, dsn, same))}
	nodes[0].out(t, "v/ops/agent/create", `{"agentId": "shared", "config": `+scripted+`}`)
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Not c.out: it ends the test, which only the test's goroutine may.
			r := nodes[i%2].run(t, "v/ops/agent/request", fmt.Sprintf(`{"agentId": "shared", "input": {"i": %d, "delay": 20}, "timeout": 20000}`, i))
			if r.status != 200 || !strings.Contains(string(r.body), `"run":`) {
				t.Errorf("request %d through node %d: %d %s", i, i%2, r.status, r.body)
			}
		})
	}
	wg.Wait()
	info := nodes[1].out(t, "v/ops/agent/info", `{"agentId": "shared"}`)
	var state struct{ Runs float64 }
	if err := json.Unmarshal(nodes[0].read(t, "g/shared/state"), &state); err != nil {
		t.Fatal(err)
	}
	if info["status"] != "SLEEPING" || state.Runs == 0 || info["timelineLength"] != state.Runs {
		t.Fatalf("status %v, %v timeline entries, state counts %v runs: runs overlapped", info["status"], info["timelineLength"], state.Runs)
	}
	t.Logf("%d requests over two nodes took %v runs", n, state.Runs)
}
