package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// asSignedIn returns a client of m holding the venue-signed token the
// sign-in door issues to the provider user id, and that user's DID.
func asSignedIn(t *testing.T, m *Main, id string) (*client, string) {
	t.Helper()
	ident := m.engine.Identity()
	did, now := ident.UserDID(id), time.Now()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{Issuer: ident.DID, Subject: did,
		Audience: jwt.ClaimStrings{ident.DID}, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}).SignedString(ident.Key)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(m)
	c.token = tok
	return c, did
}

// issue runs v/ops/ucan/issue as c and returns the token, failing unless
// it is issued.
func issue(t *testing.T, c *client, aud, att string) string {
	t.Helper()
	r := c.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": %s, "exp": %d}`, aud, att, time.Now().Add(time.Hour).Unix()))
	var out struct{ Token, Iss string }
	r.json(t, &out)
	if r.status != 200 || out.Token == "" {
		t.Fatalf("ucan/issue: %d %s", r.status, r.body)
	}
	return out.Token
}

// TestIsolation_Delegation: a user signed in through OAuth, who has no key
// to sign a UCAN with, delegates its own namespace through v/ops/ucan/issue,
// and exactly as far as it says; nobody delegates what they do not hold.
func TestIsolation_Delegation(t *testing.T) {
	m := MustRunMain(t, "")
	carol, carolDID := asSignedIn(t, m, "google-carol")
	bob, bobU := asUser(t, m)
	anon := newClient(m)
	mustOK(t, carol.run(t, "v/ops/core/write", `{"path": "w/notes/today", "value": "carol-shares"}`))
	mustOK(t, carol.run(t, "v/ops/core/write", `{"path": "w/diary", "value": "carol-keeps"}`))
	grant := issue(t, carol, bobU.DID, `[{"with": "w/notes", "can": "crud/read"}]`)
	read := func(path string) string { return "/api/v1/values/read?path=" + url.QueryEscape(carolDID+path) }
	for _, tc := range []struct {
		name   string
		c      *client
		req    func(c *client) reply
		status int
		want   string
	}{
		{"the venue-signed grant opens carol's notes", bob, func(c *client) reply {
			return c.do(t, "GET", read("/w/notes/today"), nil, "X-Covia-Ucans", grant)
		}, 200, "carol-shares"},
		{"and carries into a job", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/read", "input": {"path": "`+carolDID+`/w/notes/today"}, "ucans": ["`+grant+`"]}`)
		}, 200, "carol-shares"},
		{"but not her diary", bob, func(c *client) reply {
			return c.do(t, "GET", read("/w/diary"), nil, "X-Covia-Ucans", grant)
		}, 403, "Capability denied: " + bobU.DID + " holds no crud/read on " + carolDID + "/w/diary"},
		{"nor writing", bob, func(c *client) reply {
			return c.do(t, "POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "`+carolDID+`/w/notes/x", "value": 1}, "ucans": ["`+grant+`"]}`)
		}, 403, "Capability denied: " + bobU.DID + " holds no crud/write on " + carolDID + "/w/notes/x"},
		{"bob may not have carol's namespace signed for him", bob, func(c *client) reply {
			return c.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": [{"with": %q, "can": "crud/read"}], "exp": %d}`, bobU.DID, carolDID+"/w", time.Now().Add(time.Hour).Unix()))
		}, 403, "The venue signs delegations only of your own namespace"},
		{"a did:key signs its own", bob, func(c *client) reply {
			return c.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": [{"with": "w", "can": "crud/read"}], "exp": %d}`, carolDID, time.Now().Add(time.Hour).Unix()))
		}, 403, "a did:key signs its own UCANs"},
		{"the anonymous caller delegates nothing", anon, func(c *client) reply {
			return c.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": [{"with": "w", "can": "crud/read"}], "exp": %d}`, bobU.DID, time.Now().Add(time.Hour).Unix()))
		}, 401, "The anonymous caller delegates nothing"},
		{"an expiry in the past", carol, func(c *client) reply {
			return c.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": [{"with": "w", "can": "crud/read"}], "exp": 1}`, bobU.DID))
		}, 400, "exp must be in the future"},
		{"a grant for bob is no use to anyone else", anon, func(c *client) reply {
			return c.do(t, "GET", read("/w/notes/today"), nil, "X-Covia-Ucans", grant)
		}, 403, "issued to someone else"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req(tc.c)
			if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("%d %s, want %d with %q", r.status, r.body, tc.status, tc.want)
			}
			if tc.status != 200 && strings.Contains(string(r.body), "carol-") {
				t.Fatalf("leaks: %s", r.body)
			}
		})
	}
	t.Run("ucan/verify says what a token proves", func(t *testing.T) {
		for _, tc := range []struct{ input, want string }{
			{`{"token": "` + grant + `", "aud": "` + bobU.DID + `", "with": "` + carolDID + `/w/notes/today", "can": "crud/read"}`,
				`"valid":true,"iss":"` + m.engine.Identity().DID + `","aud":"` + bobU.DID + `"`},
			{`{"token": "` + grant + `", "with": "` + carolDID + `/w/diary", "can": "crud/read"}`, `"authorises":false`},
			{`{"token": "` + grant + `", "with": "` + carolDID + `/w/notes", "can": "crud/read"}`, `"authorises":true`},
			{`{"token": "` + grant + `"}`, `"chainDepth":0`},
			{`{"token": "` + grant + `", "aud": "` + carolDID + `"}`, `"valid":false,"reason":"UCAN refused: its audience is ` + bobU.DID},
			{`{"token": "not-a-token"}`, `"valid":false,"reason":"UCAN is not a well-formed EdDSA JWT`},
		} {
			r := anon.run(t, "v/ops/ucan/verify", tc.input)
			if r.status != 200 || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("%s: %d %s, want %s", tc.input, r.status, r.body, tc.want)
			}
		}
	})
}

// TestIsolation_AdminDelegates: an admin hands a user mcp/manage, a
// venue-wide ability, through a UCAN the venue signs; with it the user adds
// a venue-scope bridge, without it not.
func TestIsolation_AdminDelegates(t *testing.T) {
	m, adminC, admin := adminVenue(t)
	bob, bobU := asUser(t, m)
	mustOK(t, bob.do(t, "PUT", "/api/v1/secrets/VENDOR", `{"value": "`+bridgeToken+`"}`))
	add := `{"operation": "v/ops/mcp/server/add", "input": {"name": "team", "url": "` + vendorServer(t) + `", "auth": "s/VENDOR", "scope": "venue"}`
	if r := bob.do(t, "POST", "/api/v1/run", add+`}`); r.status != 403 || !strings.Contains(r.errorText(t), "holds no mcp/manage") {
		t.Fatalf("without the grant: %d %s", r.status, r.body)
	}
	manage := issue(t, adminC, bobU.DID, `[{"with": "`+m.engine.Identity().DID+`", "can": "mcp/manage"}]`)
	if r := bob.do(t, "POST", "/api/v1/run", add+`, "ucans": ["`+manage+`"]}`); r.status != 200 || !strings.Contains(string(r.body), `"scope":"venue"`) {
		t.Fatalf("with the admin's grant: %d %s", r.status, r.body)
	}
	if r := bob.run(t, "v/ops/ucan/issue", fmt.Sprintf(`{"aud": %q, "att": [{"with": %q, "can": "mcp/manage"}], "exp": %d}`,
		admin.DID, m.engine.Identity().DID, time.Now().Add(time.Hour).Unix())); r.status != 403 || !strings.Contains(r.errorText(t), "holds no mcp/manage") {
		t.Fatalf("a non-admin delegating mcp/manage: %d %s", r.status, r.body)
	}
}
