package main

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/tools/llmstub"
)

// stubVenues runs fn on a venue per store that may reach the stand-in
// provider stub, whose base URL it is given.
func stubVenues(t *testing.T, stub *llmstub.Stub, fn func(t *testing.T, m *Main, base string)) {
	srv := httptest.NewServer(stub)
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	forEachStore(t, func(t *testing.T, _ *client, m *Main) { fn(t, m, srv.URL+"/v1") }, func(c *Config) { c.AllowHosts = []string{host} })
}

// withKey stores the stand-in provider's key as the client's secret.
func (c *client) withKey(t *testing.T) *client {
	mustOK(t, c.do(t, "PUT", "/api/v1/secrets/OPENAI_API_KEY", `"`+stubKey+`"`))
	return c
}

// requestBodies returns the stub's requests from the n-th on, as text.
func requestBodies(stub *llmstub.Stub, from int) string {
	var b strings.Builder
	for _, r := range stub.Requests()[from:] {
		b.Write(mustJSON(r.Body))
	}
	return b.String()
}

func toolCall(name, args string) llmstub.Reply {
	return llmstub.Reply{ToolCalls: []llmstub.ToolCall{{Name: name, Arguments: []byte(args)}}}
}

// TestAgents_Caps: an agent acts only within the capabilities granted to
// it. Its transition and every tool call run as its owner confined to its
// caps; a denied tool call is a result the model reads, and the run goes
// on; caps beyond the owner's namespace need the creator's UCAN.
func TestAgents_Caps(t *testing.T) {
	stub := llmstub.New(stubKey)
	stubVenues(t, stub, func(t *testing.T, m *Main, base string) {
		alice, aliceU := asUser(t, m)
		bob, bobU := asUser(t, m)
		alice.withKey(t)
		llmCfg := func(tools string) string {
			return `{"operation": "v/ops/llmagent/chat", "baseUrl": "` + base + `", "model": "m1", "tools": [` + tools + `]}`
		}
		mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes/a", "value": "alice-note"}`))
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/private", "value": "bob-private"}`))

		t.Run("a read-only agent's write is denied, the model is told and the run goes on", func(t *testing.T) {
			alice.out(t, "v/ops/agent/create", `{"agentId": "ro", "config": `+llmCfg(`"v/ops/core/read", "v/ops/core/write"`)+`,
				"caps": [{"with": "w/notes", "can": "crud/read"}]}`)
			info := alice.out(t, "v/ops/agent/info", `{"agentId": "ro"}`)
			if caps := string(mustJSON(info["caps"])); caps != `[{"can":"crud/read","with":"`+aliceU.DID+`/w/notes"}]` {
				t.Fatalf("caps %s", caps)
			}
			from := len(stub.Requests())
			stub.Add(toolCall("core_write", `{"path": "w/notes/b", "value": "written"}`),
				toolCall("core_write", `{"path": "w/elsewhere", "value": "written"}`),
				toolCall("core_read", `{"path": "w/notes/a"}`),
				toolCall("complete_task", `{"result": {"read": "ok"}}`),
				llmstub.Reply{Text: "done"})
			out := alice.out(t, "v/ops/agent/request", `{"agentId": "ro", "input": "copy the note", "timeout": 10000}`)
			if out["read"] != "ok" {
				t.Fatalf("request %v", out)
			}
			sent := requestBodies(stub, from)
			if n := strings.Count(sent, "Capability denied"); n < 2 {
				t.Fatalf("the model was not told of both denials (%d): %s", n, sent)
			}
			if !strings.Contains(sent, "alice-note") {
				t.Fatalf("the granted read did not reach the model: %s", sent)
			}
			for _, p := range []string{"w/notes/b", "w/elsewhere"} {
				if v := alice.read(t, p); v != nil {
					t.Fatalf("%s was written: %s", p, v)
				}
			}
			if st := alice.status(t, "ro"); st != "SLEEPING" {
				t.Fatalf("status %s", st)
			}
		})

		t.Run("an agent cannot reach another user's data", func(t *testing.T) {
			alice.out(t, "v/ops/agent/create", `{"agentId": "snoop", "config": `+llmCfg(`"v/ops/core/read", "v/ops/core/write"`)+`}`)
			from := len(stub.Requests())
			stub.Add(toolCall("core_read", `{"path": "`+bobU.DID+`/w/private"}`),
				toolCall("core_write", `{"path": "`+bobU.DID+`/w/private", "value": "overwritten"}`),
				llmstub.Reply{Text: "could not"})
			alice.out(t, "v/ops/agent/request", `{"agentId": "snoop", "input": "read bob's notes", "timeout": 10000}`)
			sent := requestBodies(stub, from)
			if strings.Contains(sent, "bob-private") || strings.Count(sent, "Capability denied") < 2 {
				t.Fatalf("the agent reached bob's data: %s", sent)
			}
			if v := string(bob.read(t, "w/private")); v != `"bob-private"` {
				t.Fatalf("bob's value %s", v)
			}
		})

		foreign := `[{"with": "` + bobU.DID + `/w/private", "can": "crud/read"}]`
		t.Run("caps beyond the creator's namespace need its UCAN", func(t *testing.T) {
			alice.refused(t, "v/ops/agent/create", `{"agentId": "ext", "config": `+llmCfg(`"v/ops/core/read"`)+`, "caps": `+foreign+`}`,
				"An agent cannot be granted more than its creator holds: caps[0]")
			if r := alice.run(t, "v/ops/agent/info", `{"agentId": "ext"}`); r.status == 200 {
				t.Fatalf("the refused agent exists: %s", r.body)
			}
			grant := bobU.grant(t, aliceU.DID, venue.Capability{With: bobU.DID + "/w/private", Can: venue.AbilityRead})
			r := alice.run(t, "v/ops/agent/create", `{"agentId": "ext", "config": `+llmCfg(`"v/ops/core/read"`)+`, "caps": `+foreign+`}`, "X-Covia-Ucans", grant)
			mustOK(t, r)
			from := len(stub.Requests())
			stub.Add(toolCall("core_read", `{"path": "`+bobU.DID+`/w/private"}`),
				toolCall("core_read", `{"path": "w/notes/a"}`),
				llmstub.Reply{Text: "read it"})
			alice.out(t, "v/ops/agent/request", `{"agentId": "ext", "input": "read bob's notes", "timeout": 10000}`)
			sent := requestBodies(stub, from)
			if !strings.Contains(sent, "bob-private") || !strings.Contains(sent, "Capability denied") || strings.Contains(sent, "alice-note") {
				t.Fatalf("the agent holds other than its caps: %s", sent)
			}
		})

		t.Run("update grants no more than the caller holds", func(t *testing.T) {
			alice.refused(t, "v/ops/agent/update", `{"agentId": "ro", "caps": `+foreign+`}`, "cannot be granted more than its creator holds")
			alice.out(t, "v/ops/agent/update", `{"agentId": "ro", "caps": [{"with": "w/notes", "can": "crud"}]}`)
			info := alice.out(t, "v/ops/agent/info", `{"agentId": "ro"}`)
			if caps := string(mustJSON(info["caps"])); !strings.Contains(caps, `"can":"crud"`) {
				t.Fatalf("caps %s", caps)
			}
		})

		t.Run("a confined agent's tool calls use no secret beyond its caps, its provider key included", func(t *testing.T) {
			// The provider key is the model call's alone: tools run what
			// the model asks, and a prompt could ask an HTTP tool to send
			// {s/OPENAI_API_KEY} anywhere (an audit's agent did).
			mustOK(t, alice.do(t, "PUT", "/api/v1/secrets/OTHER_KEY", `"`+stubKey+`"`))
			for i, key := range []string{"OTHER_KEY", "OPENAI_API_KEY"} {
				id := fmt.Sprintf("keyless%d", i)
				alice.out(t, "v/ops/agent/create", `{"agentId": "`+id+`", "config": `+llmCfg(`"v/ops/llm/chat"`)+`,
					"caps": [{"with": "w/notes", "can": "crud/read"}]}`)
				from := len(stub.Requests())
				stub.Add(toolCall("llm_chat", `{"baseUrl": "`+base+`", "model": "m1", "apiKeySecret": "`+key+`", "messages": [{"role": "user", "content": "hi"}]}`),
					llmstub.Reply{Text: "no key for me"})
				out := alice.out(t, "v/ops/agent/request", `{"agentId": "`+id+`", "input": "use the key", "timeout": 10000}`)
				if out["result"] != "no key for me" {
					t.Fatalf("%s: request %v", key, out)
				}
				if sent := requestBodies(stub, from); !strings.Contains(sent, "Capability denied") || !strings.Contains(sent, "/s/"+key) {
					t.Fatalf("%s: the model was not told of the denial: %s", key, sent)
				}
				if n := len(stub.Requests()) - from; n != 2 {
					t.Fatalf("%s: %d model calls: the tool reached the provider with the key", key, n)
				}
			}
		})

		t.Run("an agent given no caps holds its owner's namespace", func(t *testing.T) {
			info := alice.out(t, "v/ops/agent/info", `{"agentId": "snoop"}`)
			if caps := string(mustJSON(info["caps"])); caps != `[{"can":"*","with":"`+aliceU.DID+`"}]` {
				t.Fatalf("default caps %s", caps)
			}
			if caps := string(alice.read(t, "g/snoop/caps")); !strings.Contains(caps, aliceU.DID) {
				t.Fatalf("g/snoop/caps %s", caps)
			}
		})

		t.Run("malformed caps are refused saying what to fix", func(t *testing.T) {
			for _, tc := range []struct{ name, caps, want string }{
				{"not a list", `"all"`, "input.caps: got string, want array"},
				{"no with", `[{"can": "crud/read"}]`, "input.caps.0: missing property 'with'"},
				{"empty with", `[{"with": "", "can": "crud/read"}]`, "caps[0].with: required"},
				{"bad path", `[{"with": "w/../s", "can": "crud/read"}]`, "caps[0].with"},
				{"bad ability", `[{"with": "w/notes", "can": "Read Everything"}]`, "caps[0].can"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					alice.refused(t, "v/ops/agent/create", `{"agentId": "bad", "caps": `+tc.caps+`}`, tc.want)
				})
			}
			if r := alice.run(t, "v/ops/agent/info", `{"agentId": "bad"}`); r.status == 200 {
				t.Fatalf("a refused agent exists: %s", r.body)
			}
		})
	})
}
