package rest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestRefOf(t *testing.T) {
	const did = "did:web:127.0.0.1%3A8080"
	for _, tc := range []struct{ name, escaped, want string }{
		{"hex id", "0xab", "0xab"},
		{"path with slashes", "v/ops/core/read", "v/ops/core/read"},
		{"path as one segment", "v%2Fops%2Fcore%2Fread", "v/ops/core/read"},
		{"leading slash", "/a/ab", "/a/ab"},
		{"escaped space in a path", "w/my%20notes", "w/my notes"},
		{"DID URL as written keeps the DID's %3A", did + "/a/ab", did + "/a/ab"},
		{"DID URL with encoded slashes", did + "%2Fa%2Fab", did + "/a/ab"},
		{"DID URL encoded by encodeURIComponent", url.QueryEscape(did + "/a/ab"), did + "/a/ab"},
		{"DID URL encoded by PathEscape", url.PathEscape(did + "/a/ab"), did + "/a/ab"},
		{"a DID alone as written keeps its %3A (an asset's DID)", did + ":a:ab", did + ":a:ab"},
		{"a DID alone encoded once more", url.PathEscape(did + ":a:ab"), did + ":a:ab"},
		{"malformed escape kept", "a%zz", "a%zz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refOf(tc.escaped); got != tc.want {
				t.Fatalf("refOf(%q) = %q, want %q", tc.escaped, got, tc.want)
			}
		})
	}
}

func TestUnclean(t *testing.T) {
	for p, want := range map[string]bool{
		"/": false, "/api/v1/status": false, "/swagger/": false, "/api/v1/jobs/": false,
		"//": true, "/api//v1": true, "/api/../status": true, "/./x": true, "/x/..": true, "/x/.hidden": false,
	} {
		if got := unclean(p); got != want {
			t.Errorf("unclean(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzRewriteRefPaths checks that any path a client sends, once rewritten,
// is a consistent URL (Path is the decoding of RawPath) that a ServeMux
// matches as one reference segment, and that a reference encoded as one
// segment reads back as itself.
func FuzzRewriteRefPaths(f *testing.F) {
	for _, s := range []string{"a/ab", "did:web:h%3A1/a/ab", "v%2Fops", "/a/x/content", "w/../x", "did:%25/x", "%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tail string) {
		if !strings.HasPrefix(tail, "did:") {
			if got := refOf(url.PathEscape(tail)); got != tail {
				t.Fatalf("refOf(PathEscape(%q)) = %q", tail, got)
			}
		}
		u, err := url.Parse("http://venue/api/v1/assets/" + tail)
		if err != nil || u.Path == "" {
			return
		}
		r := &http.Request{Method: "GET", URL: u}
		var seen *http.Request
		rewriteRefPaths(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r })).ServeHTTP(httptest.NewRecorder(), r)
		if seen.URL.RawPath != "" {
			if dec, err := url.PathUnescape(seen.URL.RawPath); err != nil || dec != seen.URL.Path {
				t.Fatalf("RawPath %q does not decode to Path %q", seen.URL.RawPath, seen.URL.Path)
			}
			if seen.URL.EscapedPath() != seen.URL.RawPath {
				t.Fatalf("RawPath %q is not used", seen.URL.RawPath)
			}
		}
	})
}

func TestRepeatedParam(t *testing.T) {
	for _, tc := range []struct{ name, target, want string }{
		{"no query", "/api/v1/values/read", ""},
		{"one parameter", "/api/v1/values/read?path=w/a", ""},
		{"two different ones", "/api/v1/values/slice?path=w/a&limit=5", ""},
		{"a path twice", "/api/v1/values/read?path=w/a&path=v/info", "path"},
		{"a repeat spelled escaped", "/api/v1/values/slice?limit=1&li%6Dit=2", "limit"},
		{"inspect takes several paths", "/api/v1/values/inspect?path=w/a&path=w/b", ""},
		{"but one budget", "/api/v1/values/inspect?path=w/a&budget=1&budget=2", "budget"},
		{"empty pieces are no parameter", "/api/v1/jobs?&&limit=1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := repeatedParam(httptest.NewRequest("GET", tc.target, nil)); got != tc.want {
				t.Fatalf("repeatedParam = %q, want %q", got, tc.want)
			}
		})
	}
}
