package mcpserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzForwarded checks that whatever a client puts in X-Forwarded-Proto and
// X-Forwarded-Host, the endpoint stays an http(s) URL whose only change is
// its scheme and host: no path, query, fragment or credentials slip in.
func FuzzForwarded(f *testing.F) {
	for _, s := range [][2]string{{"https", "venue.example.com"}, {"http, https", "a.example:8443, b"},
		{"javascript", "evil.example/x?y#z"}, {"HTTPS", "[::1]:9"}, {"", "user@host"}, {"0", "[::0]0"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, proto, host string) {
		r := &http.Request{Header: http.Header{"X-Forwarded-Proto": {proto}, "X-Forwarded-Host": {host}}}
		u := url.URL{Scheme: "http", Host: "127.0.0.1:8080"}
		forwarded(r, &u)
		u.Path = "/mcp"
		again, err := url.Parse(u.String())
		if err != nil || (again.Scheme != "http" && again.Scheme != "https") || again.User != nil ||
			again.Path != "/mcp" || again.RawQuery != "" || again.Fragment != "" || strings.ContainsAny(again.Host, "/?#@ ") {
			t.Fatalf("proto %q host %q gave %q", proto, host, u.String())
		}
	})
}
