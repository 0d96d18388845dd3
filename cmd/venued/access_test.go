package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestConfig_AnonymousDefault(t *testing.T) {
	for _, tc := range []struct{ listen, set, want string }{
		{"127.0.0.1:8080", "", "write"},
		{"localhost:8080", "", "write"},
		{"[::1]:8080", "", "write"},
		{"0.0.0.0:8080", "", "invoke"},
		{":8080", "", "invoke"},
		{"10.0.0.5:8080", "", "invoke"},
		{"0.0.0.0:8080", "write", "write"},
		{"127.0.0.1:8080", "none", "none"},
	} {
		t.Run(tc.listen+" "+tc.set, func(t *testing.T) {
			c := defaultConfig()
			c.Listen, c.Auth.Anonymous = tc.listen, tc.set
			if got := c.anonymousLevel(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	if _, err := loadConfig([]string{"--listen", "127.0.0.1:1"}, func(k string) string {
		return map[string]string{"VENUE_ANONYMOUS": "sometimes"}[k]
	}); err == nil || !strings.Contains(err.Error(), "want none, read, invoke or write") {
		t.Fatalf("err = %v", err)
	}
}

// TestAccess_AnonymousLevels: what a caller without a token may do at each
// level the config offers, while a user with a token may do it all.
func TestAccess_AnonymousLevels(t *testing.T) {
	t.Parallel() // long, and free of timing: it runs beside the other parallel tests
	type step struct{ method, path, body string }
	steps := map[string]step{
		"status":       {"GET", "/api/v1/status", ""},
		"read":         {"GET", "/api/v1/values/read?path=w/x", ""},
		"invoke":       {"POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo"}`},
		"write by op":  {"POST", "/api/v1/run", `{"operation": "v/ops/core/write", "input": {"path": "w/x", "value": 1}}`},
		"put secret":   {"PUT", "/api/v1/secrets/K", `{"value": "v-value"}`},
		"add asset":    {"POST", "/api/v1/assets", `{"name": "n"}`},
		"did document": {"GET", "/.well-known/did.json", ""},
	}
	ok := func(r reply) bool { return r.status/100 == 2 }
	for _, tc := range []struct {
		level   string
		allowed []string
	}{
		{"none", []string{"did document"}},
		{"read", []string{"did document", "status", "read"}},
		{"invoke", []string{"did document", "status", "read", "invoke"}},
		{"write", []string{"did document", "status", "read", "invoke", "write by op", "put secret", "add asset"}},
	} {
		t.Run(tc.level, func(t *testing.T) {
			m := MustRunMain(t, "", func(c *Config) { c.Auth.Anonymous = tc.level })
			anon := newClient(m)
			user, _ := asUser(t, m)
			for name, s := range steps {
				want := false
				for _, a := range tc.allowed {
					want = want || a == name
				}
				r := anon.do(t, s.method, s.path, s.body)
				if ok(r) != want || (!want && r.status/100 != 4) {
					t.Errorf("anonymous %s: %d %s, allowed %v", name, r.status, r.body, want)
				}
				if !want && r.status == 401 && !strings.Contains(r.errorText(t), "Bearer") {
					t.Errorf("anonymous %s: the 401 does not say how to authenticate: %s", name, r.body)
				}
				if r := user.do(t, s.method, s.path, s.body); !ok(r) {
					t.Errorf("user %s: %d %s", name, r.status, r.body)
				}
			}
		})
	}
}

// TestToken_Command: venued token mints an identity whose token the venue
// accepts, and --seed mints again for the same identity.
func TestToken_Command(t *testing.T) {
	m := MustRunMain(t, "")
	mint := func(args ...string) map[string]string {
		var out bytes.Buffer
		if err := runToken(append([]string{"--url", m.Config.URL}, args...), func(string) string { return "" }, &out); err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			k, v, _ := strings.Cut(line, "=")
			vars[k] = v
		}
		return vars
	}
	first := mint()
	c := newClient(m)
	c.token = first["TOKEN"]
	mustOK(t, c.do(t, "PUT", "/api/v1/secrets/MINE", `{"value": "v-value"}`))
	again := mint("--seed", first["SEED"], "--ttl", "5m")
	if again["DID"] != first["DID"] || !strings.HasPrefix(first["DID"], "did:key:z6Mk") {
		t.Fatalf("%v %v", first, again)
	}
	c.token = again["TOKEN"]
	if r := c.do(t, "GET", "/api/v1/secrets", nil); !strings.Contains(string(r.body), "MINE") {
		t.Fatalf("%s", r.body)
	}
	noted := false
	for line := range mint("--ttl", "48h") { // a shell comment, among the assignments
		noted = noted || strings.HasPrefix(line, "# a venue accepts a token valid for 48h0m0s only if its auth.maxTokenTTL is at least that")
	}
	if !noted {
		t.Error("a token valid past 24h comes without a note of what a venue accepts")
	}
	// Without --url or VENUE_URL, the token is for the venue VENUE_LISTEN
	// names, as that venue derives its own URL.
	var out bytes.Buffer
	if err := runToken(nil, func(k string) string { return map[string]string{"VENUE_LISTEN": m.Addr}[k] }, &out); err != nil {
		t.Fatal(err)
	}
	_, tok, _ := strings.Cut(out.String(), "TOKEN=")
	c.token = strings.TrimSpace(tok)
	mustOK(t, c.do(t, "GET", "/api/v1/secrets", nil))
	for _, bad := range [][]string{{"--seed", "zz"}, {"--ttl", "-1s"}, {"extra"}, {"--url", "ftp://x"}} {
		if err := runToken(bad, func(string) string { return "" }, &bytes.Buffer{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
