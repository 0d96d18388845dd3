package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/ucan"
)

// TestIsolation_RevokedUCANs: a UCAN's issuer revokes it, and from then on
// the venue refuses it as a bearer token, in ucans, and as the proof of a
// token that rests on it, on every node of the store; nobody else revokes
// it, and a user revokes what the venue signed on its behalf.
func TestIsolation_RevokedUCANs(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *client, m *Main) {
		bob, bobU := asUser(t, m)
		carol, carolU := asUser(t, m)
		dave, daveU := asUser(t, m)
		mustOK(t, bob.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "bob-shares"}`))
		venueDID := m.engine.Identity().DID
		notes := []venue.Capability{{With: bobU.DID + "/w/notes", Can: venue.AbilityRead}}
		exp := time.Now().Add(time.Hour)
		mint := func(key user, aud string, prf []string) string {
			tok, err := ucan.Issue(key.Key, key.DID, aud, notes, prf, exp)
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		share := mint(bobU, venueDID, nil)     // a share: bob's notes for whoever holds it
		toCarol := mint(bobU, carolU.DID, nil) // bob's notes for carol
		onward := mint(carolU, daveU.DID, []string{toCarol})
		holder := newClient(m)
		readNotes := "/api/v1/values/read?path=" + url.QueryEscape(bobU.DID+"/w/notes")
		withUCAN := func(tok string) string {
			return fmt.Sprintf(`{"operation": "v/ops/core/read", "input": {"path": "%s/w/notes"}, "ucans": [%q]}`, bobU.DID, tok)
		}
		check := func(t *testing.T, r reply, status int, want string) {
			t.Helper()
			if r.status != status || !strings.Contains(string(r.body), want) {
				t.Fatalf("%d %s, want %d with %q", r.status, r.body, status, want)
			}
		}
		// Every node: a second venue on the same store, which has verified
		// (and cached) the share before its revocation, refuses it after.
		nodes := []*Main{m}
		if strings.HasPrefix(m.Config.Store, "postgres") {
			nodes = append(nodes, MustRunMain(t, m.Config.Store, sameURL))
		}
		for _, n := range nodes {
			check(t, newClient(n).do(t, "GET", readNotes, nil, "Authorization", "Bearer "+share), 200, "bob-shares")
		}
		check(t, holder.do(t, "GET", readNotes, nil, "Authorization", "Bearer "+share), 200, "bob-shares")
		check(t, carol.do(t, "POST", "/api/v1/run", withUCAN(toCarol)), 200, "bob-shares")
		check(t, dave.do(t, "POST", "/api/v1/run", withUCAN(onward)), 200, "bob-shares")

		revoke := func(c *client, tok string) reply {
			return c.run(t, "v/ops/ucan/revoke", fmt.Sprintf(`{"token": %q}`, tok))
		}
		check(t, revoke(carol, share), 403, "Only a UCAN's issuer may revoke it")
		check(t, revoke(newClient(m), share), 403, "Only a UCAN's issuer may revoke it")
		check(t, revoke(bob, "not a token"), 400, "Cannot revoke this token")
		sum := sha256.Sum256([]byte(share))
		check(t, revoke(bob, share), 200, `"id":"`+hex.EncodeToString(sum[:])+`"`)
		check(t, revoke(bob, share), 200, `"revoked":true`)
		check(t, revoke(bob, toCarol), 200, `"revoked":true`)

		for i, n := range nodes {
			t.Run(fmt.Sprintf("node %d", i), func(t *testing.T) {
				check(t, newClient(n).do(t, "GET", readNotes, nil, "Authorization", "Bearer "+share), 401, "revoked by its issuer")
				for _, c := range []struct {
					who *client
					tok string
				}{{carol, toCarol}, {dave, onward}} {
					who := *c.who
					who.base = "http://" + n.Addr
					check(t, who.do(t, "POST", "/api/v1/run", withUCAN(c.tok)), 403, "revoked by its issuer")
				}
			})
		}
		check(t, carol.run(t, "v/ops/ucan/verify", fmt.Sprintf(`{"token": %q}`, onward)), 200, `"valid":false`)

		// What the venue signed for a user without a key of its own, that
		// user revokes.
		erin, erinDID := asSignedIn(t, m, "google-erin")
		mustOK(t, erin.run(t, "v/ops/core/write", `{"path": "w/notes", "value": "erin-shares"}`))
		grant := issue(t, erin, bobU.DID, `[{"with": "w/notes", "can": "crud/read"}]`)
		erinNotes := fmt.Sprintf(`{"operation": "v/ops/core/read", "input": {"path": "%s/w/notes"}, "ucans": [%q]}`, erinDID, grant)
		check(t, bob.do(t, "POST", "/api/v1/run", erinNotes), 200, "erin-shares")
		check(t, revoke(bob, grant), 403, "Only a UCAN's issuer may revoke it")
		check(t, revoke(erin, grant), 200, `"revoked":true`)
		check(t, bob.do(t, "POST", "/api/v1/run", erinNotes), 403, "revoked by its issuer")
	}, sameURL)
}

// sameURL gives the nodes of one store one URL, so one DID.
func sameURL(c *Config) { c.URL = "http://venue.test" }
