package main

import (
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestMCP_UCANsInArguments: "ucans" in a tool call's arguments prove
// grants for that call, as in a REST invoke, and never reach the operation
// or its job record; a token that does not verify is an isError result
// that says why.
func TestMCP_UCANsInArguments(t *testing.T) {
	m := MustRunMain(t, "")
	alice, aliceU := asUser(t, m)
	bob, bobU := asUser(t, m)
	mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes/today", "value": "shared-with-bob"}`))
	readNotes := aliceU.grant(t, bobU.DID, venue.Capability{With: aliceU.DID + "/w/notes", Can: venue.AbilityRead})
	sess := mcpSession(t, m, bob.token)
	notes := aliceU.DID + "/w/notes/today"

	for _, tc := range []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"the grant lets bob read alice's path", map[string]any{"path": notes, "ucans": []string{readNotes}}, false, "shared-with-bob"},
		{"without it he cannot", map[string]any{"path": notes}, true, ""},
		{"a bad token says why", map[string]any{"path": notes, "ucans": []string{"not-a-token"}}, true, "UCAN"},
		{"ucans must be a list of tokens", map[string]any{"path": notes, "ucans": "not-a-list"}, true, "'ucans' must be an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, sess, "core_read", tc.args)
			text := resultText(res)
			t.Logf("isError %v: %s", res.IsError, text)
			if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
				t.Fatalf("isError %v, %s; want isError %v containing %q", res.IsError, text, tc.isError, tc.want)
			}
		})
	}
	t.Run("the job's input has no ucans", func(t *testing.T) {
		var ids []string
		bob.do(t, "GET", "/api/v1/jobs", nil).json(t, &ids)
		if len(ids) == 0 {
			t.Fatal("bob has no jobs")
		}
		for _, id := range ids {
			if r := bob.do(t, "GET", "/api/v1/jobs/"+id, nil); strings.Contains(string(r.body), "ucans") || strings.Contains(string(r.body), readNotes) {
				t.Fatalf("job %s keeps the ucans: %s", id, r.body)
			}
		}
	})
}
