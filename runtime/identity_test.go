package runtime

import (
	"strings"
	"testing"
)

// TestDIDWeb derives the venue's DID from its public URL, and refuses a URL
// that would publish a password or break the links made from it.
func TestDIDWeb(t *testing.T) {
	for _, tc := range []struct{ name, url, want, wantErr string }{
		{"a host and port", "http://127.0.0.1:8080", "did:web:127.0.0.1%3A8080", ""},
		{"a path", "https://example.com/venue/", "did:web:example.com:venue", ""},
		{"not http", "ftp://example.com", "", "must be an absolute http(s) URL"},
		{"user info", "http://admin:s3cret@example.com", "", "no user info, query or fragment"},
		{"a query", "http://example.com/?debug=1", "", "no user info, query or fragment"},
		{"a fragment", "http://example.com/#f", "", "no user info, query or fragment"},
		{"a port out of range", "http://example.com:99999", "", "want 1 to 65535"},
		{"an empty port", "https://venue.example.com:", "", "want 1 to 65535"},
		{"an escaped slash", "https://example.com/a%2Fb", "", "or an escaped '/'"},
		{"dot segments", "https://example.com/./x/../", "", "'.' or '..' segments"},
		{"escaped dot segments", "https://example.com/%2e%2e/evil", "", "'.' or '..' segments"},
		{"an empty segment", "https://example.com//x", "", "without empty"},
		{"a colon in a segment", "https://example.com/a:b", "did:web:example.com:a%3Ab", ""},
		{"a port with a leading zero", "http://example.com:08080", "", "without leading zeros"},
		{"an IPv6 host", "https://[::1]:8443", "did:web:%5B%3A%3A1%5D%3A8443", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DIDWeb(tc.url)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("DIDWeb(%q) = %q, %v; want an error saying %q", tc.url, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("DIDWeb(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
			}
		})
	}
}
