package mcpbridge

import (
	"net/url"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestNormalizeURL(t *testing.T) {
	for _, tc := range []struct{ name, in, want, code string }{
		{"bare host implies /mcp", "https://mcp.example.com", "https://mcp.example.com/mcp", ""},
		{"host plus /mcp is the same server", "https://mcp.example.com/mcp", "https://mcp.example.com/mcp", ""},
		{"no scheme means https", "mcp.example.com", "https://mcp.example.com/mcp", ""},
		{"explicit path kept", "https://api.example.com/v1/mcp/", "https://api.example.com/v1/mcp/", ""},
		{"lone trailing slash is the root", "https://example.com/", "https://example.com/", ""},
		{"port and query kept", "http://127.0.0.1:9000/hook?x=1", "http://127.0.0.1:9000/hook?x=1", ""},
		{"fragment dropped", "https://example.com/mcp#frag", "https://example.com/mcp", ""},
		{"spaces in the query encoded", "0? a\u00a0b #", "https://0/mcp?%20a%C2%A0b%20", ""},
		{"host lowercased", "https://MCP.Example.com", "https://mcp.example.com/mcp", ""},
		{"empty", " ", "", venue.EINVALID},
		{"ftp refused", "ftp://example.com/mcp", "", venue.EINVALID},
		{"credentials refused", "https://user:pw@example.com/mcp", "", venue.EINVALID},
		{"no host", "https:///mcp", "", venue.EINVALID},
		{"opaque", "mailto:a@b.c", "", venue.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeURL(tc.in)
			if venue.ErrorCode(err) != tc.code {
				t.Fatalf("NormalizeURL(%q) error = %v, want code %q", tc.in, err, tc.code)
			}
			if got != tc.want {
				t.Fatalf("NormalizeURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzNormalizeURL checks that whatever comes in, a URL that is accepted is
// http(s) with a host and a path, and normalising it again changes nothing.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"example.com", "https://a.b/", "http://127.0.0.1:1/x?y#z", "https://u@h/", "%", "http://[::1]/mcp", "0? #"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeURL(s)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("NormalizeURL(%q): error without EINVALID: %v", s, err)
			}
			return
		}
		u, err := url.Parse(got)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Path == "" || u.User != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which is not a usable URL", s, got)
		}
		again, err := NormalizeURL(got)
		if err != nil || again != got {
			t.Fatalf("NormalizeURL(%q) = %q, but again = %q, %v", s, got, again, err)
		}
	})
}
