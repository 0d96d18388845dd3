package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// TestIsolation_ShareFollowsItsOwnJobs: a UCAN sent as the bearer is a
// share of what it grants. Its holder follows the jobs begun with that
// token, and no other of the issuer's: those hold the outputs of every
// read the issuer made. The issuer still reads them all.
func TestIsolation_ShareFollowsItsOwnJobs(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		bob, bobU := asUser(t, m)
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/diary", "value": "bob-private"}`))
		private := invokeJob(t, bob, `{"operation": "v/ops/core/read", "input": {"path": "w/diary"}, "wait": true}`)
		share := func(exp time.Duration) string {
			tok, err := ucan.Issue(bobU.Key, bobU.DID, m.engine.Identity().DID,
				[]venue.Capability{{With: bobU.DID + "/w/notes", Can: venue.AbilityRead}}, nil, time.Now().Add(exp))
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		first, second := share(time.Hour), share(2*time.Hour)
		holder := newClient(m)
		as := func(tok string) []string { return []string{"Authorization", "Bearer " + tok} }
		var shared jobJSON
		if r := holder.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/delay", "input": {"ms": 60000}}`, as(first)...); r.status != 201 {
			t.Fatalf("invoke with the share: %d %s", r.status, r.body)
		} else {
			r.json(t, &shared)
		}
		sum := sha256.Sum256([]byte(first))

		for _, tc := range []struct {
			name, method, path, body string
			token                    string
			status                   int
			want                     string
		}{
			{"the holder reads the job begun with its token", "GET", "/api/v1/jobs/" + shared.ID, "", first, 200, `"share":"` + hex.EncodeToString(sum[:]) + `"`},
			{"and reads it as a lattice path", "GET", "/api/v1/values/read?path=j/" + shared.ID + "/status", "", first, 200, `"value":"STARTED"`},
			{"but not the issuer's other jobs", "GET", "/api/v1/jobs/" + private.ID, "", first, 404, "Job not found"},
			{"nor as a lattice path", "GET", "/api/v1/values/read?path=j/" + private.ID, "", first, 200, `"exists":false`},
			{"nor through an operation", "POST", "/api/v1/run", `{"operation": "v/ops/core/read", "input": {"path": "j/` + private.ID + `"}}`, first, 200, `"exists":false`},
			{"nor by its events", "GET", "/api/v1/jobs/" + private.ID + "/sse", "", first, 404, "Job not found"},
			{"it lists none of them", "GET", "/api/v1/jobs", "", first, 403, "lists none of its issuer's jobs"},
			{"nor as the lattice's j", "GET", "/api/v1/values/list?path=j", "", first, 403, "lists none of its issuer's jobs"},
			{"nor reads them whole through an operation", "POST", "/api/v1/run", `{"operation": "v/ops/core/read", "input": {"path": "j"}}`, first, 403, "lists none of its issuer's jobs"},
			{"nor counts them", "GET", "/api/v1/values/count?path=j", "", first, 403, "lists none of its issuer's jobs"},
			{"it cannot cancel the issuer's other jobs", "PUT", "/api/v1/jobs/" + private.ID + "/cancel", "", first, 404, "Job not found"},
			{"another share of the same grants does not follow the first's jobs", "GET", "/api/v1/jobs/" + shared.ID, "", second, 404, "Job not found"},
			{"nor cancel them", "PUT", "/api/v1/jobs/" + shared.ID + "/cancel", "", second, 404, "Job not found"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var body any
				if tc.body != "" {
					body = tc.body
				}
				r := holder.do(t, tc.method, tc.path, body, as(tc.token)...)
				if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
					t.Fatalf("%d %s, want %d with %s", r.status, r.body, tc.status, tc.want)
				}
				if strings.Contains(string(r.body), "bob-private") {
					t.Fatalf("leaks the issuer's job: %s", r.body)
				}
			})
		}
		t.Run("the issuer reads and lists every job, the share's too", func(t *testing.T) {
			if r := bob.do(t, "GET", "/api/v1/jobs/"+shared.ID, nil); r.status != 200 || !strings.Contains(string(r.body), `"share":"`) {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if r := bob.do(t, "GET", "/api/v1/jobs", nil); r.status != 200 || !strings.Contains(string(r.body), shared.ID) || !strings.Contains(string(r.body), private.ID) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
		t.Run("the holder cancels the job begun with its token", func(t *testing.T) {
			if r := holder.do(t, "PUT", "/api/v1/jobs/"+shared.ID+"/cancel", nil, as(first)...); r.status != 200 || !strings.Contains(string(r.body), "CANCELLED") {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	})
}
