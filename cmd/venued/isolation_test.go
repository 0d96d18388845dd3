package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestIsolation_Matrix: two users and the anonymous caller against every
// endpoint and operation that touches jobs, secrets and the w/ o/ j/ g/ s/
// namespaces. Nobody reads, lists, cancels, deletes or invokes through
// another's data, and the answer is the one a missing thing gets, so it
// leaks nothing.
func TestIsolation_Matrix(t *testing.T) {
	forEachStore(t, func(t *testing.T, anon *client, m *Main) {
		alice, aliceU := asUser(t, m)
		bob, _ := asUser(t, m)
		done := invokeJob(t, alice, `{"operation": "v/test/ops/echo", "input": {"note": "alice-echo"}, "wait": true}`)
		live := invokeJob(t, alice, `{"operation": "v/test/ops/ask", "input": {"question": "alice-asks"}}`)
		waitJob(t, alice, live.ID, "INPUT_REQUIRED")
		mustOK(t, alice.do(t, "PUT", "/api/v1/secrets/ALICE_KEY", `{"value": "alice-secret-value"}`))
		for _, p := range []string{"w/notes", "o/pin"} {
			mustOK(t, alice.run(t, "v/ops/core/write", `{"path": "`+p+`", "value": "alice-private"}`))
		}
		// g/ is written by the agent operations only.
		mustOK(t, alice.run(t, "v/ops/agent/create", `{"agentId": "helper", "state": "alice-private"}`))
		private := []string{"alice-echo", "alice-asks", "alice-secret-value", "alice-private", "ALICE_KEY", done.ID, live.ID, aliceU.DID}
		cases := []struct {
			name, method, path, body string
			status                   int
			want                     string // in the body
		}{
			{"read a job", "GET", "/api/v1/jobs/" + done.ID, "", 404, "Job not found"},
			{"stream a job", "GET", "/api/v1/jobs/" + live.ID + "/sse", "", 404, "Job not found"},
			{"cancel a job", "PUT", "/api/v1/jobs/" + live.ID + "/cancel", "", 404, "Job not found"},
			{"pause a job", "PUT", "/api/v1/jobs/" + live.ID + "/pause", "", 404, "Job not found"},
			{"resume a job", "PUT", "/api/v1/jobs/" + live.ID + "/resume", "", 404, "Job not found"},
			{"reply to a job", "POST", "/api/v1/jobs/" + live.ID, `{"answer": "hijack"}`, 404, "Job not found"},
			{"delete a job", "PUT", "/api/v1/jobs/" + done.ID + "/delete", "", 404, "Job not found"},
			{"list jobs", "GET", "/api/v1/jobs", "", 200, "["},
			{"list secrets", "GET", "/api/v1/secrets", "", 200, "items"},
			{"delete a secret", "DELETE", "/api/v1/secrets/ALICE_KEY", "", 404, "Secret not found"},
			{"read w/", "GET", "/api/v1/values/read?path=w/notes", "", 200, `"exists":false`},
			{"read o/", "GET", "/api/v1/values/read?path=o/pin", "", 200, `"exists":false`},
			{"read g/", "GET", "/api/v1/values/read?path=g/helper", "", 200, `"exists":false`},
			{"read j/<id>", "GET", "/api/v1/values/read?path=j/" + done.ID, "", 200, `"exists":false`},
			{"read s/<name>", "GET", "/api/v1/values/read?path=s/ALICE_KEY", "", 200, `"exists":false`},
			{"slice j/", "GET", "/api/v1/values/slice?path=j", "", 200, `"values":[`},
			{"list s/", "GET", "/api/v1/values/list?path=s", "", 200, `"exists"`},
			{"invoke with alice's secret", "POST", "/api/v1/run", `{"operation": "v/test/ops/reveal", "input": {"secret": "s/ALICE_KEY"}}`, 404, "Secret not found"},
			{"invoke a read of alice's w/ by DID", "POST", "/api/v1/run", `{"operation": "v/ops/core/read", "input": {"path": "` + aliceU.DID + `/w/notes"}}`, 0, "Capability denied"},
			{"invoke a write to alice's w/ by DID", "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "` + aliceU.DID + `/w/notes", "value": "x"}}`, 0, "Capability denied"},
			{"read alice's w/ by DID", "GET", "/api/v1/values/read?path=" + url.QueryEscape(aliceU.DID+"/w/notes"), "", 0, "Capability denied"},
			{"read alice's s/ by DID", "GET", "/api/v1/values/read?path=" + url.QueryEscape(aliceU.DID+"/s/ALICE_KEY"), "", 0, "Capability denied"},
			{"slice alice's j/ by DID", "GET", "/api/v1/values/slice?path=" + url.QueryEscape(aliceU.DID+"/j"), "", 0, "Capability denied"},
		}
		for _, who := range []struct {
			name string
			c    *client
			deny int // the status a capability denial gets
		}{{"other user", bob, 403}, {"anonymous", anon, 401}} {
			for _, tc := range cases {
				t.Run(who.name+" may not "+tc.name, func(t *testing.T) {
					r := who.c.do(t, tc.method, tc.path, tc.body)
					want := tc.status
					if want == 0 {
						want = who.deny
					}
					if tc.path == "/api/v1/run" && tc.status == 0 && r.status/100 == 4 {
						want = r.status // the job fails; how the Wasm host words it is its own
					}
					if r.status != want || !strings.Contains(string(r.body), tc.want) {
						t.Fatalf("%d %s, want %d with %s", r.status, r.body, want, tc.want)
					}
					for _, p := range private {
						// Echoing what the request itself named is no leak.
						asked, _ := url.QueryUnescape(tc.path + tc.body)
						if strings.Contains(string(r.body), p) && !strings.Contains(asked, p) {
							t.Fatalf("answer leaks %q: %s", p, r.body)
						}
					}
				})
			}
		}
		t.Run("alice still has everything", func(t *testing.T) {
			waitJob(t, alice, live.ID, "INPUT_REQUIRED")
			if r := alice.do(t, "GET", "/api/v1/jobs/"+done.ID, nil); r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if r := alice.do(t, "GET", "/api/v1/secrets", nil); !strings.Contains(string(r.body), "ALICE_KEY") {
				t.Fatalf("%s", r.body)
			}
			if r := alice.do(t, "GET", "/api/v1/values/read?path=w/notes", nil); !strings.Contains(string(r.body), "alice-private") {
				t.Fatalf("%s", r.body)
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
	for _, tc := range []struct {
		name   string
		c      *client
		req    func(c *client) reply
		status int
		want   string
	}{
		{"the grant opens the granted path", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil, "X-Covia-Ucans", readNotes)
		}, 200, "shared-with-bob"},
		{"ucans on invoke carry the grant into the job", bob, func(c *client) reply {
			return c.run(t, "v/ops/core/read", `{"path": "`+aliceU.DID+`/w/notes/today"}", "ucans": ["`+readNotes+`"], "x": {"`)
		}, 0, ""},
		{"the grant does not reach a sibling path", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+url.QueryEscape(aliceU.DID+"/w/diary"), nil, "X-Covia-Ucans", readNotes)
		}, 403, "Capability denied"},
		{"a read grant does not allow writing", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "`+aliceU.DID+`/w/notes/today", "value": "x"}, "ucans": ["`+readNotes+`"]}`)
		}, 400, "Capability denied"},
		{"without the grant the path is closed", bob, func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil)
		}, 403, "Capability denied"},
		{"a grant to bob is no use to anyone else", newClient(m), func(c *client) reply {
			return c.do(t, "GET", "/api/v1/values/read?path="+notes, nil, "X-Covia-Ucans", readNotes)
		}, 401, "issued to someone else"},
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.status == 0 {
				t.Skip("run's body with ucans is covered by the invoke case below")
			}
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
