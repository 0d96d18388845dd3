package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestIsolation_MCP: the MCP door, as another user and as the anonymous
// caller. A tool call acting on alice's data is refused as the REST door
// refuses it (an isError result saying why, and the same words for a
// thing that does not exist), and alice's MCP session serves nobody else:
// not a call, not her stream, not closing it.
func TestIsolation_MCP(t *testing.T) {
	m := MustRunMain(t, "")
	alice, aliceU := asUser(t, m)
	bob, bobU := asUser(t, m)
	anon := newClient(m)
	A := aliceU.DID
	mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "alice-private"}`))
	done := invokeJob(t, alice, `{"operation": "v/test/ops/echo", "input": {"note": "alice-echo"}, "wait": true}`)
	aliceSession := mcpInit(t, alice)
	ghost := strings.NewReplacer(done.ID, ghostJobs[0], "w/notes", "w/ghost")
	for _, who := range []struct {
		name, did string
		c         *client
	}{{"other user", bobU.DID, bob}, {"anonymous", "", anon}} {
		denied := func(can, with string) string {
			if who.did == "" {
				return "Capability denied: anonymous callers may not " + can + " on " + with + " here"
			}
			return "Capability denied: " + who.did + " holds no " + can + " on " + with + ": "
		}
		own := mcpInit(t, who.c)
		for _, tc := range []struct{ tool, args, want string }{
			{"core_read", `{"path": "` + A + `/w/notes"}`, denied("crud/read", A+"/w/notes")},
			{"core_write", `{"path": "` + A + `/w/notes", "value": "x"}`, denied("crud/write", A+"/w/notes")},
			{"core_delete", `{"path": "` + A + `/w/notes"}`, denied("crud/delete", A+"/w/notes")},
			{"core_list", `{"path": "` + A + `/w"}`, denied("crud/read", A+"/w")},
			{"grid_job_status", `{"id": "` + done.ID + `"}`, "Job not found: " + done.ID},
			{"grid_job_result", `{"id": "` + done.ID + `", "timeout": 0}`, "Job not found: " + done.ID},
		} {
			t.Run(who.name+" calls "+tc.tool, func(t *testing.T) {
				call := func(args string) (string, reply) {
					r := mcpPost(t, who.c, own, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tc.tool+`","arguments":`+args+`}}`)
					var res struct {
						Result struct {
							IsError bool `json:"isError"`
							Content []struct{ Text string }
						}
					}
					r.json(t, &res)
					if r.status != 200 || !res.Result.IsError || len(res.Result.Content) != 1 {
						t.Fatalf("%d %s, want an isError result", r.status, r.body)
					}
					return res.Result.Content[0].Text, r
				}
				msg, r := call(tc.args)
				if !strings.HasPrefix(msg, tc.want) || strings.Contains(string(r.body), "alice-") {
					t.Fatalf("%s, want %q", r.body, tc.want)
				}
				if twin, _ := call(ghost.Replace(tc.args)); twin != ghost.Replace(msg) {
					t.Fatalf("the answer differs from its twin's about nothing:\n%s\n%s", msg, twin)
				}
			})
		}
		t.Run(who.name+" may not use alice's session", func(t *testing.T) {
			for _, r := range []reply{
				mcpPost(t, who.c, aliceSession, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w/notes"}}}`),
				mcpPost(t, who.c, aliceSession, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`),
				who.c.do(t, "GET", "/mcp", nil, "Accept", "text/event-stream", "Mcp-Session-Id", aliceSession),
				who.c.do(t, "DELETE", "/mcp", nil, "Mcp-Session-Id", aliceSession),
			} {
				if r.status != 403 || strings.Contains(string(r.body), "alice-") || strings.Contains(string(r.body), A) {
					t.Fatalf("%d %s, want 403", r.status, r.body)
				}
			}
		})
	}
	t.Run("alice's data and session are untouched", func(t *testing.T) {
		r := mcpPost(t, alice, aliceSession, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"core_read","arguments":{"path":"w/notes"}}}`)
		var res struct {
			Result struct {
				IsError           bool            `json:"isError"`
				StructuredContent json.RawMessage `json:"structuredContent"`
			}
		}
		r.json(t, &res)
		if r.status != 200 || res.Result.IsError || !strings.Contains(string(res.Result.StructuredContent), `"value":"alice-private"`) {
			t.Fatalf("alice's own call on her session: %d %s", r.status, r.body)
		}
	})
}
