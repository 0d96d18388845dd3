package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// ghostJobs are well-formed job ids nobody has: the twins of real ones.
var ghostJobs = []string{"0x01a20000000000000000000000000001", "0x01a20000000000000000000000000002", "0x01a20000000000000000000000000003"}

// isolationCase is one request another caller makes against alice's data,
// and the answer it must get: the status and the start of the error (or a
// piece of the body), or a capability denial of can on with, which a user
// gets as 403 and the anonymous caller as 401.
type isolationCase struct {
	name, method, path, body string
	status                   int
	want                     string
	can, with                string
}

// TestIsolation_Matrix: two users and the anonymous caller against every
// endpoint and operation that touches jobs, secrets and the w/ o/ j/ g/ s/
// namespaces. Nobody reads, lists, cancels, resumes, deletes or invokes
// through another's data. Each answer is checked (status and message), and
// checked again against its twin, the same request about something that
// does not exist: they must read the same, so nothing leaks existence.
func TestIsolation_Matrix(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	forEachStore(t, func(t *testing.T, anon *client, m *Main) {
		alice, aliceU := asUser(t, m)
		bob, bobU := asUser(t, m)
		A := aliceU.DID
		done := invokeJob(t, alice, `{"operation": "v/test/ops/echo", "input": {"note": "alice-echo"}, "wait": true}`)
		live := invokeJob(t, alice, `{"operation": "v/test/ops/ask", "input": {"question": "alice-asks"}}`)
		paused := invokeJob(t, alice, `{"operation": "v/test/ops/ask", "input": {"question": "alice-pauses"}}`)
		waitJob(t, alice, live.ID, "INPUT_REQUIRED")
		waitJob(t, alice, paused.ID, "INPUT_REQUIRED")
		mustOK(t, alice.do(t, "PUT", "/api/v1/jobs/"+paused.ID+"/pause", nil))
		mustOK(t, alice.do(t, "PUT", "/api/v1/secrets/ALICE_KEY", `{"value": "alice-secret-value"}`))
		for _, p := range []string{"w/notes", "o/pin"} {
			mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "`+p+`", "value": "alice-private"}`))
		}
		// g/ is written by the agent operations only.
		mustOK(t, alice.run(t, "v/ops/agent/create", `{"agentId": "helper", "state": "alice-private"}`))
		for _, c := range []*client{bob, anon} {
			mustOK(t, c.run(t, "v/ops/core/write", `{"path": "w/mine", "value": "planted"}`))
		}
		private := []string{"alice-echo", "alice-asks", "alice-pauses", "alice-secret-value", "alice-private", "ALICE_KEY", done.ID, live.ID, paused.ID, A}
		var twins []string
		for _, p := range [][2]string{{done.ID, ghostJobs[0]}, {live.ID, ghostJobs[1]}, {paused.ID, ghostJobs[2]},
			{"ALICE_KEY", "GHOST_KEY"}, {"w/notes", "w/ghost"}, {"o/pin", "o/ghost"}, {"g/helper", "g/ghost"}} {
			twins = append(twins, p[0], p[1], url.QueryEscape(p[0]), url.QueryEscape(p[1]))
		}
		ghost := strings.NewReplacer(twins...)
		enc := url.QueryEscape
		run := func(op, input string) string { return `{"operation": "` + op + `", "input": ` + input + `}` }
		cases := []isolationCase{
			{name: "read a job", method: "GET", path: "/api/v1/jobs/" + done.ID, status: 404, want: "Job not found: " + done.ID},
			{name: "stream a job", method: "GET", path: "/api/v1/jobs/" + live.ID + "/sse", status: 404, want: "Job not found: " + live.ID},
			{name: "cancel a job", method: "PUT", path: "/api/v1/jobs/" + live.ID + "/cancel", status: 404, want: "Job not found: " + live.ID},
			{name: "pause a job", method: "PUT", path: "/api/v1/jobs/" + live.ID + "/pause", status: 404, want: "Job not found: " + live.ID},
			{name: "resume a running job", method: "PUT", path: "/api/v1/jobs/" + live.ID + "/resume", status: 404, want: "Job not found: " + live.ID},
			{name: "resume a PAUSED job", method: "PUT", path: "/api/v1/jobs/" + paused.ID + "/resume", status: 404, want: "Job not found: " + paused.ID},
			{name: "reply to a job", method: "POST", path: "/api/v1/jobs/" + live.ID, body: `{"answer": "hijack"}`, status: 404, want: "Job not found: " + live.ID},
			{name: "delete a job", method: "PUT", path: "/api/v1/jobs/" + done.ID + "/delete", status: 404, want: "Job not found: " + done.ID},
			{name: "list jobs", method: "GET", path: "/api/v1/jobs", status: 200, want: "["},
			{name: "list secrets", method: "GET", path: "/api/v1/secrets", status: 200, want: `{"items":[`},
			{name: "delete a secret", method: "DELETE", path: "/api/v1/secrets/ALICE_KEY", status: 404, want: "Secret not found: ALICE_KEY"},
			{name: "read w/", method: "GET", path: "/api/v1/values/read?path=w/notes", status: 200, want: `"exists":false`},
			{name: "read o/", method: "GET", path: "/api/v1/values/read?path=o/pin", status: 200, want: `"exists":false`},
			{name: "read g/", method: "GET", path: "/api/v1/values/read?path=g/helper", status: 200, want: `"exists":false`},
			{name: "read j/<id>", method: "GET", path: "/api/v1/values/read?path=j/" + done.ID, status: 200, want: `"exists":false`},
			{name: "read s/<name>", method: "GET", path: "/api/v1/values/read?path=s/ALICE_KEY", status: 200, want: `"exists":false`},
			{name: "slice j/", method: "GET", path: "/api/v1/values/slice?path=j", status: 200, want: `"values":[`},
			{name: "list s/", method: "GET", path: "/api/v1/values/list?path=s", status: 200, want: `"exists"`},
			{name: "read w/ by DID", method: "GET", path: "/api/v1/values/read?path=" + enc(A+"/w/notes"), can: "crud/read", with: A + "/w/notes"},
			{name: "read o/ by DID", method: "GET", path: "/api/v1/values/read?path=" + enc(A+"/o/pin"), can: "crud/read", with: A + "/o/pin"},
			{name: "read g/ by DID", method: "GET", path: "/api/v1/values/read?path=" + enc(A+"/g/helper"), can: "crud/read", with: A + "/g/helper"},
			{name: "read j/ by DID", method: "GET", path: "/api/v1/values/read?path=" + enc(A+"/j/"+done.ID), can: "crud/read", with: A + "/j/" + done.ID},
			{name: "read s/ by DID", method: "GET", path: "/api/v1/values/read?path=" + enc(A+"/s/ALICE_KEY"), can: "crud/read", with: A + "/s/ALICE_KEY"},
			{name: "slice j/ by DID", method: "GET", path: "/api/v1/values/slice?path=" + enc(A+"/j"), can: "crud/read", with: A + "/j"},
			{name: "list w/ by DID", method: "GET", path: "/api/v1/values/list?path=" + enc(A+"/w"), can: "crud/read", with: A + "/w"},
			{name: "invoke with alice's secret", method: "POST", path: "/api/v1/run", body: run("v/test/ops/reveal", `{"secret": "s/ALICE_KEY"}`), status: 404, want: "Operation failed: Secret not found: ALICE_KEY"},
			{name: "await a job's result", method: "POST", path: "/api/v1/run", body: run("v/ops/grid/job-result", `{"id": "`+done.ID+`", "timeout": 50}`), status: 404, want: "Operation failed: Job not found: " + done.ID},
			{name: "take a job's result at once", method: "POST", path: "/api/v1/run", body: run("v/ops/grid/job-result", `{"id": "`+done.ID+`", "timeout": 0}`), status: 404, want: "Operation failed: Job not found: " + done.ID},
			{name: "read a job's status", method: "POST", path: "/api/v1/run", body: run("v/ops/grid/job-status", `{"id": "`+live.ID+`"}`), status: 404, want: "Operation failed: Job not found: " + live.ID},
			{name: "core:read w/ by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/read", `{"path": "`+A+`/w/notes"}`), can: "crud/read", with: A + "/w/notes"},
			{name: "core:read o/ by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/read", `{"path": "`+A+`/o/pin"}`), can: "crud/read", with: A + "/o/pin"},
			{name: "core:read g/ by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/read", `{"path": "`+A+`/g/helper"}`), can: "crud/read", with: A + "/g/helper"},
			{name: "core:read j/ by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/read", `{"path": "`+A+`/j/`+done.ID+`"}`), can: "crud/read", with: A + "/j/" + done.ID},
			{name: "core:write by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/write", `{"path": "`+A+`/w/notes", "value": "x"}`), can: "crud/write", with: A + "/w/notes"},
			{name: "core:delete by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/delete", `{"path": "`+A+`/w/notes"}`), can: "crud/delete", with: A + "/w/notes"},
			{name: "core:append by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/append", `{"path": "`+A+`/w/notes", "value": 1}`), can: "crud/write", with: A + "/w/notes"},
			{name: "core:copy out by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/copy", `{"from": "`+A+`/w/notes", "to": "w/stolen"}`), can: "crud/read", with: A + "/w/notes"},
			{name: "core:copy in by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/copy", `{"from": "w/mine", "to": "`+A+`/w/notes"}`), can: "crud/write", with: A + "/w/notes"},
			{name: "core:list by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/list", `{"path": "`+A+`/w"}`), can: "crud/read", with: A + "/w"},
			{name: "core:slice by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/slice", `{"path": "`+A+`/g"}`), can: "crud/read", with: A + "/g"},
			{name: "core:inspect by DID", method: "POST", path: "/api/v1/run", body: run("v/ops/core/inspect", `{"paths": ["`+A+`/w/notes"]}`), can: "crud/read", with: A + "/w/notes"},
		}
		for _, who := range []struct {
			name string
			c    *client
			did  string
		}{{"other user", bob, bobU.DID}, {"anonymous", anon, ""}} {
			for _, tc := range cases {
				t.Run(who.name+" may not "+tc.name, func(t *testing.T) {
					status, want := tc.status, tc.want
					switch {
					case tc.can != "" && who.did != "":
						status, want = 403, "Capability denied: "+who.did+" holds no "+tc.can+" on "+tc.with+": "
					case tc.can != "":
						status, want = 401, "Capability denied: anonymous callers may not "+tc.can+" on "+tc.with+" here"
					}
					r := who.c.do(t, tc.method, tc.path, tc.body)
					got := string(r.body)
					if status != 200 {
						got = r.errorText(t)
					}
					if r.status != status || !strings.HasPrefix(got, want) && !(status == 200 && strings.Contains(got, want)) {
						t.Fatalf("%d %s, want %d with %q", r.status, r.body, status, want)
					}
					asked, _ := url.QueryUnescape(tc.path + tc.body)
					for _, p := range private {
						// Echoing what the request itself named is no leak.
						if strings.Contains(string(r.body), p) && !strings.Contains(asked, p) {
							t.Fatalf("answer leaks %q: %s", p, r.body)
						}
					}
					twin := who.c.do(t, tc.method, ghost.Replace(tc.path), ghost.Replace(tc.body))
					if twin.status != r.status || string(twin.body) != ghost.Replace(string(r.body)) {
						t.Fatalf("the answer differs from its twin's about nothing:\n%d %s\n%d %s", r.status, r.body, twin.status, twin.body)
					}
				})
			}
		}
		t.Run("alice still has everything", func(t *testing.T) {
			waitJob(t, alice, live.ID, "INPUT_REQUIRED")
			waitJob(t, alice, paused.ID, "PAUSED")
			if r := alice.do(t, "GET", "/api/v1/jobs/"+done.ID, nil); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if r := alice.run(t, "v/ops/grid/job-result", `{"id": "`+done.ID+`", "timeout": 0}`); r.status != 200 || !strings.Contains(string(r.body), "alice-echo") {
				t.Fatalf("her own job's result at once: %d %s", r.status, r.body)
			}
			if r := alice.do(t, "GET", "/api/v1/secrets", nil); !strings.Contains(string(r.body), "ALICE_KEY") {
				t.Fatalf("%s", r.body)
			}
			if r := alice.do(t, "GET", "/api/v1/values/read?path=w", nil); !strings.Contains(string(r.body), `"value":{"notes":"alice-private"}`) {
				t.Fatalf("alice's w/ changed: %s", r.body)
			}
		})
		t.Run("users do not see the anonymous namespace", func(t *testing.T) {
			mustOK(t, anon.run(t, "v/ops/core/write", `{"path": "w/public-note", "value": "anon-note"}`))
			if r := alice.do(t, "GET", "/api/v1/values/read?path=w/public-note", nil); strings.Contains(string(r.body), "anon-note") {
				t.Fatalf("%s", r.body)
			}
		})
	})
}

// TestIsolation_UCANGrants: a user reaches another's data exactly as far
// as a UCAN from its owner says, and no further.
func TestIsolation_UCANGrants(t *testing.T) {
	m := MustRunMain(t, "")
	alice, aliceU := asUser(t, m)
	bob, bobU := asUser(t, m)
	mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/notes/today", "value": "shared-with-bob"}`))
	mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "w/diary", "value": "not-shared"}`))
	readNotes := aliceU.grant(t, bobU.DID, venue.Capability{With: aliceU.DID + "/w/notes", Can: venue.AbilityRead})
	notes := url.QueryEscape(aliceU.DID + "/w/notes/today")
	aliceJob := invokeJob(t, alice, `{"operation": "v/test/ops/echo", "input": {"said": "to-bob"}, "wait": true}`)
	readJobs := aliceU.grant(t, bobU.DID, venue.Capability{With: aliceU.DID + "/j", Can: venue.AbilityRead})
	for _, tc := range []struct {
		name   string
		c      *client
		req    func(c *client) reply
		status int
		want   string
	}{
		{"a grant on alice's jobs opens one by id, as its lattice path", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/jobs/"+aliceJob.ID, nil, "X-Covia-Ucans", readJobs)
		}, 200, "to-bob"},
		{"a grant on her notes does not open her jobs", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/jobs/"+aliceJob.ID, nil, "X-Covia-Ucans", readNotes)
		}, 404, "Job not found"},
		{"nor does no grant", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/jobs/"+aliceJob.ID, nil)
		}, 404, "Job not found"},
		{"the grant opens the granted path", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil, "X-Covia-Ucans", readNotes)
		}, 200, "shared-with-bob"},
		{"ucans on run carry the grant into the job", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/read", "input": {"path": "`+aliceU.DID+`/w/notes/today"}, "ucans": ["`+readNotes+`"]}`)
		}, 200, "shared-with-bob"},
		{"the grant does not reach a sibling path", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+url.QueryEscape(aliceU.DID+"/w/diary"), nil, "X-Covia-Ucans", readNotes)
		}, 403, "Capability denied"},
		{"a read grant does not allow writing", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "`+aliceU.DID+`/w/notes/today", "value": "x"}, "ucans": ["`+readNotes+`"]}`)
		}, 403, "Capability denied: " + bobU.DID + " holds no crud/write on " + aliceU.DID + "/w/notes/today"},
		{"without the grant the path is closed", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil)
		}, 403, "Capability denied"},
		{"a grant to bob is no use to anyone else", newClient(m), func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil, "X-Covia-Ucans", readNotes)
		}, 403, "issued to someone else"},
		{"a grant to bob in another's invoke is refused", alice, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "ucans": ["`+readNotes+`"]}`)
		}, 403, "issued to someone else"},
		{"a malformed UCAN is a bad request", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "ucans": ["not-a-token"]}`)
		}, 400, "not a well-formed"},
		{"a UCAN as the bearer makes its issuer the caller with its grants", newClient(m), func(c *client) reply {
			asBearer := bobU.grant(t, m.engine.Identity().DID, venue.Capability{With: bobU.DID + "/w", Can: venue.AbilityRead})
			return c.do(t, "GET", "/api/v1/values/read?path=w/notes", nil, "Authorization", "Bearer "+asBearer)
		}, 200, `"exists":false`},
		{"a UCAN as the bearer holds only its grants, not its issuer's whole account", newClient(m), func(c *client) reply {
			asBearer := bobU.grant(t, m.engine.Identity().DID, venue.Capability{With: bobU.DID + "/w", Can: venue.AbilityRead})
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "w/x", "value": 1}}`, "Authorization", "Bearer "+asBearer)
		}, 403, "Capability denied"},
		{"a UCAN as the bearer follows the jobs it invokes", newClient(m), func(c *client) reply {
			asBearer := bobU.grant(t, m.engine.Identity().DID, venue.Capability{With: bobU.DID + "/w", Can: venue.AbilityRead})
			var j struct{ ID string }
			c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"said": "followed"}}`, "Authorization", "Bearer "+asBearer).json(t, &j)
			return c.do(t, "GET", "/api/v1/jobs/"+j.ID, nil, "Authorization", "Bearer "+asBearer)
		}, 200, "followed"},
		{"a UCAN as the bearer gives no agent a provider key it does not grant", newClient(m), func(c *client) reply {
			asBearer := bobU.grant(t, m.engine.Identity().DID, venue.Capability{With: bobU.DID + "/g", Can: "*"})
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/agent/create", "input": {"agentId": "spender",
				"config": {"apiKeySecret": "s/BANK", "baseUrl": "https://elsewhere.example/v1"}}}`, "Authorization", "Bearer "+asBearer)
		}, 403, "An agent cannot be given a provider key its creator may not use: s/BANK"},
		{"a UCAN as the bearer lists no secrets it does not grant", newClient(m), func(c *client) reply {
			asBearer := bobU.grant(t, m.engine.Identity().DID, venue.Capability{With: bobU.DID + "/w", Can: venue.AbilityRead})
			return c.do(t, "GET", "/api/v1/secrets", nil, "Authorization", "Bearer "+asBearer)
		}, 403, "Capability denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req(tc.c)
			if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("%d %s, want %d with %s", r.status, r.body, tc.status, tc.want)
			}
			if tc.status != 200 && strings.Contains(string(r.body), "shared-with-bob") {
				t.Fatalf("leaks: %s", r.body)
			}
		})
	}
	t.Run("invoke with ucans reads through the grant", func(t *testing.T) {
		j := invokeJob(t, bob, `{"operation": "v/ops/core/read", "input": {"path": "`+aliceU.DID+`/w/notes/today"}, "ucans": ["`+readNotes+`"], "wait": true}`)
		if j.Status != "COMPLETE" || !strings.Contains(toJSON(t, j.Output), "shared-with-bob") {
			t.Fatalf("%+v", j)
		}
	})
}

func mustOK(t *testing.T, r reply) {
	t.Helper()
	if r.status/100 != 2 {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
