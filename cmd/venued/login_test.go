package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mustOAuthProvider starts the npm oauth2-mock-server (a real OpenID
// Connect provider speaking the authorization-code flow with PKCE, RS256
// ID tokens and a JWKS) on a loopback port, and returns its issuer URL.
func mustOAuthProvider(t *testing.T) string {
	t.Helper()
	bin, _ := filepath.Abs("../../tools/authcheck/node_modules/.bin/oauth2-mock-server")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("oauth2-mock-server is missing: CI must install it (cd tools/authcheck && npm ci)")
		}
		t.Skip("oauth2-mock-server is not installed: run (cd tools/authcheck && npm ci) to test sign-in")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	issuer := "http://localhost:" + itoa(port)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + itoa(port) + "/.well-known/openid-configuration")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return issuer
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("oauth2-mock-server did not start: %v", err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLogin_OAuth signs in through /auth/mock against a real OpenID Connect
// provider and uses the venue token it issues; the provider's own RS256 ID
// token names the same user.
func TestLogin_OAuth(t *testing.T) {
	issuer := mustOAuthProvider(t)
	m := MustRunMain(t, "", func(c *Config) {
		c.Auth.OAuth = map[string]OAuthConfig{"mock": {Issuer: issuer, ClientID: "venue-test"}}
	})
	base := "http://" + m.Addr
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 20 * time.Second}
	var signedIn struct {
		Token, DID, TokenType string
		Expires               int64
	}
	t.Run("login lists the provider", func(t *testing.T) {
		r := newClient(m).do(t, "GET", "/login", nil, "Accept", "application/json")
		if r.status != 200 || !strings.Contains(string(r.body), `"url":"`+base+`/auth/mock"`) {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if r := newClient(m).do(t, "GET", "/login", nil); !strings.Contains(string(r.body), "Sign in with mock") {
			t.Fatalf("%s", r.body)
		}
	})
	t.Run("the authorization-code flow with PKCE issues a venue token", func(t *testing.T) {
		resp, err := browser.Get(base + "/auth/mock")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&signedIn); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%d %v", resp.StatusCode, err)
		}
		if signedIn.DID != m.engine.Identity().UserDID("mock-johndoe") || signedIn.TokenType != "Bearer" || signedIn.Token == "" {
			t.Fatalf("%+v", signedIn)
		}
	})
	user := newClient(m)
	user.token = signedIn.Token
	t.Run("the venue token works and the user resolves", func(t *testing.T) {
		mustOK(t, user.do(t, "PUT", "/api/v1/secrets/MOCK_KEY", `{"value": "v-mock-key"}`))
		r := newClient(m).do(t, "GET", "/u/mock-johndoe/did.json", nil)
		if r.status != 200 || !strings.Contains(string(r.body), `"id":"`+signedIn.DID+`"`) {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("the signed-in user delegates through the venue", func(t *testing.T) {
		mustOK(t, user.run(t, "v/ops/core/write", `{"path": "w/shared", "value": "from-oauth-user"}`))
		friend, friendU := asUser(t, m)
		grant := issue(t, user, friendU.DID, `[{"with": "w/shared", "can": "crud/read"}]`)
		r := friend.do(t, "GET", "/api/v1/values/read?path="+url.QueryEscape(signedIn.DID+"/w/shared"), nil, "X-Covia-Ucans", grant)
		if r.status != 200 || !strings.Contains(string(r.body), "from-oauth-user") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("the provider's RS256 ID token is the same user", func(t *testing.T) {
		rs := newClient(m)
		rs.token = providerIDToken(t, issuer, "venue-test")
		if r := rs.do(t, "GET", "/api/v1/secrets", nil); r.status != 200 || !strings.Contains(string(r.body), "MOCK_KEY") {
			t.Fatalf("%d %s", r.status, r.body)
		}
		rs.token = rs.token[:len(rs.token)-4] + "AAAA"
		if r := rs.do(t, "GET", "/api/v1/secrets", nil); r.status != 401 || !strings.Contains(r.errorText(t), "Invalid token") {
			t.Fatalf("tampered: %d %s", r.status, r.body)
		}
	})
	t.Run("a provider token for another client names the clientId it needs", func(t *testing.T) {
		rs := newClient(m)
		rs.token = providerIDToken(t, issuer, "someone-else")
		r := rs.do(t, "GET", "/api/v1/secrets", nil)
		if msg := r.errorText(t); r.status != 401 || !strings.Contains(msg, "OAuth provider mock") || !strings.Contains(msg, "aud venue-test") ||
			strings.Contains(msg, "venue's DID") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	for _, tc := range []struct {
		name, path, want string
		status           int
	}{
		{"a callback without a sign-in in progress is refused", "/auth/mock/callback?code=x&state=y", "No sign-in in progress", 400},
		{"an unknown provider is 404", "/auth/nobody", "Unknown sign-in provider", 404},
		{"a provider's error is reported", "/auth/mock/callback?error=access_denied", "access_denied", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newClient(m).do(t, "GET", tc.path, nil)
			if r.status != tc.status || !strings.Contains(r.errorText(t), tc.want) {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}
	t.Run("a callback whose state was swapped is refused", func(t *testing.T) {
		noFollow := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Get(base + "/auth/mock")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		resp, err = noFollow.Get(base + "/auth/mock/callback?code=stolen&state=forged")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("%d", resp.StatusCode)
		}
	})
}

// providerIDToken runs the authorization-code flow against the provider
// directly, as its client clientID would, and returns its ID token.
func providerIDToken(t *testing.T, issuer, clientID string) string {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	redirect := "http://127.0.0.1/cb"
	resp, err := noFollow.Get(issuer + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {clientID},
		"redirect_uri": {redirect}, "scope": {"openid"}, "state": {"s"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, err = http.PostForm(issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {clientID}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		IDToken string `json:"id_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.IDToken == "" {
		t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	return body.IDToken
}

// TestAuth_JoseClient runs tools/authcheck/client.mjs, an independent client
// building its did:key tokens and UCANs with the jose library as the
// TypeScript SDK does, against a real venue.
func TestAuth_JoseClient(t *testing.T) {
	script, _ := filepath.Abs("../../tools/authcheck/client.mjs")
	if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "jose")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("jose is missing: CI must install it (cd tools/authcheck && npm ci)")
		}
		t.Skip("jose is not installed: run (cd tools/authcheck && npm ci) to test an independent token client")
	}
	m := MustRunMain(t, "")
	out, err := exec.Command("node", script, "http://"+m.Addr).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "authcheck: ok") {
		t.Fatalf("%v\n%s", err, out)
	}
}
