package mcpbridge

import (
	"net/url"
	"strings"
	"unicode"

	venue "github.com/gridvenue/venue"
)

// NormalizeURL applies the spec's rules to a bridged server's URL: a bare
// host (with or without a scheme; https when none is given) implies the
// path /mcp, any explicit path is kept as given, and a lone trailing slash
// means exactly the root path. The result has no fragment.
// Returns EINVALID for a URL that is not http(s), has no host, or carries
// credentials (a token belongs in a secret, named by "auth").
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", venue.Errorf(venue.EINVALID, "'url' is required: the MCP server's address, e.g. https://example.com/mcp")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", venue.Errorf(venue.EINVALID, "'url' is not a valid URL: %s", clip(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", venue.Errorf(venue.EINVALID, "Only HTTP/HTTPS schemes are allowed, got: %s", clip(u.Scheme))
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", venue.Errorf(venue.EINVALID, "URL has no host: %s", clip(raw))
	}
	if u.User != nil {
		return "", venue.Errorf(venue.EINVALID, "'url' must not carry credentials: store the token as a secret and pass 'auth': \"s/NAME\"")
	}
	if u.Opaque != "" {
		return "", venue.Errorf(venue.EINVALID, "'url' is not a valid URL: %s", clip(raw))
	}
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/mcp"
	}
	u.Fragment, u.RawFragment = "", ""
	// url.Parse keeps a query as written, spaces and all; encoded like the
	// path's, they survive being trimmed when the URL is normalised again.
	u.RawQuery = escapeSpaces(u.RawQuery)
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	return u.String(), nil
}

// escapeSpaces percent-encodes the white space in s.
func escapeSpaces(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) {
			b.WriteString(url.PathEscape(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
