package main

import (
	"strings"
	"testing"
)

// TestAgents_StateIsTheEngines: g/<agentId>/ is written by the agent
// operations only. A user who could write an agent's caps could name
// another user's DID in them and have the agent act on that user's data;
// one who could write a record directly would skip the checks of create.
// So the ordinary lattice writes refuse every path under g/, and the
// agent is as it was.
func TestAgents_StateIsTheEngines(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		alice, aliceU := asUser(t, m)
		bob, _ := asUser(t, m)
		mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "alice-note"}`))
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/caps", "value": [{"with": "`+aliceU.DID+`/w/notes", "can": "crud/read"}]}`))
		bob.out(t, "v/ops/agent/create", `{"agentId": "bot", "config": `+scripted+`, "caps": [{"with": "w/x", "can": "crud/read"}]}`)
		before := string(bob.read(t, "g/bot"))
		forged := `[{"with": "` + aliceU.DID + `/w/notes", "can": "crud/read"}]`
		for _, tc := range []struct{ name, op, input string }{
			{"write the caps", "v/ops/core/write", `{"path": "g/bot/caps", "value": ` + forged + `}`},
			{"write the whole record", "v/ops/core/write", `{"path": "g/bot", "value": {"status": "SLEEPING", "caps": ` + forged + `}}`},
			{"copy into the caps", "v/ops/core/copy", `{"from": "w/caps", "to": "g/bot/caps"}`},
			{"append to the caps", "v/ops/core/append", `{"path": "g/bot/caps", "value": {"with": "` + aliceU.DID + `", "can": "*"}}`},
			{"add a task", "v/ops/core/write", `{"path": "g/bot/tasks/0x0000000000000000000000000000abcd", "value": {"input": 1}}`},
			{"set the status", "v/ops/core/write", `{"path": "g/bot/status", "value": "RUNNING"}`},
			{"append to the timeline", "v/ops/core/append", `{"path": "g/bot/timeline", "value": {"forged": true}}`},
			{"write the lease", "v/ops/core/write", `{"path": "g/bot/lease", "value": 1}`},
			{"delete the sessions", "v/ops/core/delete", `{"path": "g/bot/sessions"}`},
			{"delete the agent", "v/ops/core/delete", `{"path": "g/bot"}`},
			{"write the state", "v/ops/core/write", `{"path": "g/bot/state", "value": {"runs": 99}}`},
			{"make an agent without create", "v/ops/core/write", `{"path": "g/made/status", "value": "SLEEPING"}`},
		} {
			t.Run("refuses to "+tc.name, func(t *testing.T) {
				r := bob.run(t, tc.op, tc.input)
				if r.status/100 == 2 || !strings.Contains(string(r.body), "agent operations") {
					t.Fatalf("%d %s", r.status, r.body)
				}
			})
		}
		if after := string(bob.read(t, "g/bot")); after != before {
			t.Fatalf("the agent changed:\n%s\n%s", before, after)
		}
		if r := bob.run(t, "v/ops/agent/info", `{"agentId": "made"}`); r.status == 200 {
			t.Fatalf("a written record became an agent: %s", r.body)
		}
	})
}
