package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestIsolation_DeniedEndsTheSameWay: a capability denied inside a job ends
// it REJECTED with the denial as its error, whether a Wasm operation's host
// call was refused or a native operation refused, and /run answers it 403
// (401 for the anonymous caller, whom a token would help) with the denial's
// own words. Other failures keep their codes: an agent conflict is 409.
func TestIsolation_DeniedEndsTheSameWay(t *testing.T) {
	m := MustRunMain(t, "", allowLoopback)
	alice, aliceU := asUser(t, m)
	bob, bobU := asUser(t, m)
	anon := newClient(m)
	mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "alice-private"}`))
	venueDID := m.engine.Identity().DID
	bridge := `{"name": "shared", "url": "` + vendorServer(t) + `", "scope": "venue"}`
	for _, tc := range []struct {
		name, op, input string
		bob, anon       string // the denial each gets
	}{
		{"a Wasm read of another's path", "v/ops/core/read", `{"path": "` + aliceU.DID + `/w/notes"}`,
			"Capability denied: " + bobU.DID + " holds no crud/read on " + aliceU.DID + "/w/notes: present a UCAN granting it",
			"Capability denied: anonymous callers may not crud/read on " + aliceU.DID + "/w/notes here"},
		{"a Wasm write to another's path", "v/ops/core/write", `{"path": "` + aliceU.DID + `/w/notes", "value": "x"}`,
			"Capability denied: " + bobU.DID + " holds no crud/write on " + aliceU.DID + "/w/notes",
			"Capability denied: anonymous callers may not crud/write on " + aliceU.DID + "/w/notes here"},
		{"a native venue-scope bridge without mcp/manage", "v/ops/mcp/server/add", bridge,
			"Capability denied: " + bobU.DID + " holds no mcp/manage on " + venueDID,
			"Capability denied: anonymous callers may not mcp/manage on " + venueDID},
	} {
		for _, who := range []struct {
			name   string
			c      *client
			status int
			want   string
		}{{"a user", bob, 403, tc.bob}, {"the anonymous caller", anon, 401, tc.anon}} {
			t.Run(tc.name+" by "+who.name, func(t *testing.T) {
				r := who.c.run(t, tc.op, tc.input)
				if msg := r.errorText(t); r.status != who.status || !strings.HasPrefix(msg, who.want) {
					t.Fatalf("/run: %d %s, want %d with %q", r.status, r.body, who.status, who.want)
				}
				j := invokeJob(t, who.c, `{"operation": "`+tc.op+`", "input": `+tc.input+`, "wait": true}`)
				if j.Status != "REJECTED" || !strings.HasPrefix(j.Error, who.want) || j.Output != nil {
					t.Fatalf("/invoke: %s %q, want REJECTED with %q", j.Status, j.Error, who.want)
				}
				if strings.Contains(string(r.body), "alice-private") || strings.Contains(j.Error, "alice-private") {
					t.Fatal("the denial leaks alice's value")
				}
			})
		}
	}
	t.Run("a remote server refusing the caller's secret is not the caller's 401", func(t *testing.T) {
		mustOK(t, alice.do(t, "PUT", "/api/v1/secrets/WRONG", `{"value": "not-the-token"}`))
		r := alice.run(t, "v/ops/mcp/server/add", `{"name": "wrong", "url": "`+vendorServer(t)+`", "auth": "s/WRONG"}`)
		if msg := r.errorText(t); r.status != 400 || !strings.Contains(msg, "refused the credentials") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("an agent busy in a run is 409 on /run and a FAILED job on /invoke", func(t *testing.T) {
		agentConflicts(t, alice)
	})
}

// agentConflicts holds an agent of c RUNNING and checks that a second chat
// on the session, and create with overwrite, are conflicts.
func agentConflicts(t *testing.T, c *client) {
	c.out(t, "v/ops/agent/create", `{"agentId": "busy", "config": `+scripted+`}`)
	sid := c.out(t, "v/ops/agent/message", `{"agentId": "busy", "message": "open"}`)["sessionId"].(string)
	eventually(t, "the first message is consumed", func() bool {
		return c.status(t, "busy") == "SLEEPING" && string(c.read(t, "g/busy/sessions/"+sid+"/pending")) == "[]"
	})
	done := make(chan reply)
	go func() {
		done <- c.run(t, "v/ops/agent/chat", `{"agentId": "busy", "sessionId": "`+sid+`", "message": {"delay": 800}}`)
	}()
	eventually(t, "the agent is RUNNING", func() bool { return c.status(t, "busy") == "RUNNING" })
	for _, tc := range []struct{ op, input, want string }{
		{"v/ops/agent/chat", `{"agentId": "busy", "sessionId": "` + sid + `", "message": "me too"}`, "Operation failed: A chat is already in flight on session " + sid},
		{"v/ops/agent/create", `{"agentId": "busy", "config": {"model": "x"}, "overwrite": true}`, "Operation failed: Cannot update agent busy: currently RUNNING"},
	} {
		if r := c.run(t, tc.op, tc.input); r.status != 409 || !strings.HasPrefix(r.errorText(t), tc.want) {
			t.Fatalf("%s: %d %s, want 409 with %q", tc.op, r.status, r.body, tc.want)
		}
		j := invokeJob(t, c, `{"operation": "`+tc.op+`", "input": `+tc.input+`, "wait": true}`)
		if j.Status != "FAILED" || !strings.Contains(j.Error, strings.TrimPrefix(tc.want, "Operation failed: ")) {
			t.Fatalf("%s: %s %q", tc.op, j.Status, j.Error)
		}
	}
	if r := <-done; r.status != 200 {
		var m map[string]any
		json.Unmarshal(r.body, &m)
		t.Fatalf("the chat in flight: %d %v", r.status, m)
	}
}
