package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// Discovery serves /.well-known/mcp.json and /.well-known/mcp: where the
// venue's MCP endpoint is, which transport it speaks and whether it needs a
// token. The spec names the first; the reference venue and its TypeScript
// SDK read the second. Behind a proxy the endpoint is named as the proxy
// says (X-Forwarded-Proto, X-Forwarded-Host), as the reference venue does,
// unless Options.IgnoreForwarded is set. Trusting them is safe enough: the
// document only tells the asking client where /mcp is (so a client that
// forges them misleads only itself), the values must be a plain http(s)
// scheme and host, and the answer varies by them for caches.
func (s *Server) Discovery() http.Handler {
	base, _ := url.Parse(s.e.Identity().BaseURL)
	if base == nil {
		base = &url.URL{}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "Endpoint "+r.Method+" "+r.URL.Path+" not allowed: use GET")
			return
		}
		endpoint := *base
		if !s.opts.IgnoreForwarded {
			forwarded(r, &endpoint)
			w.Header().Add("Vary", "X-Forwarded-Proto, X-Forwarded-Host")
		}
		endpoint.Path = strings.TrimSuffix(endpoint.Path, "/") + "/mcp"
		body, _ := json.Marshal(map[string]any{
			"mcp_version":    "1.0",
			"name":           ServerName,
			"description":    s.opts.Name,
			"version":        s.opts.Version,
			"server_url":     endpoint.String(),
			"endpoint":       map[string]string{"path": "/mcp", "transport": "streamable-http"},
			"capabilities":   map[string]any{"tools": map[string]any{}},
			"authentication": map[string]any{"type": "bearer", "required": s.opts.AuthRequired},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

// hostName is a host name or IPv4 address with an optional port: nothing
// that could carry a path, a query or credentials into the URL.
var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$`)

var portPart = regexp.MustCompile(`^:[0-9]{1,5}$`)

// plainHost reports whether h is a host a URL may name: a host name, an
// IPv4 address or a bracketed IPv6 address, each with an optional port.
func plainHost(h string) bool {
	if len(h) > 255 {
		return false
	}
	if !strings.HasPrefix(h, "[") {
		return hostName.MatchString(h)
	}
	end := strings.IndexByte(h, ']')
	if end < 0 {
		return false
	}
	ip, err := netip.ParseAddr(h[1:end])
	port := h[end+1:]
	return err == nil && ip.Is6() && ip.Zone() == "" && (port == "" || portPart.MatchString(port))
}

// forwarded applies the first X-Forwarded-Proto and X-Forwarded-Host a
// proxy set (the one nearest the client) to u; a value that is not an
// http(s) scheme or a plain host is ignored.
func forwarded(r *http.Request, u *url.URL) {
	first := func(name string) string {
		v, _, _ := strings.Cut(r.Header.Get(name), ",")
		return strings.TrimSpace(v)
	}
	if p := strings.ToLower(first("X-Forwarded-Proto")); p == "http" || p == "https" {
		u.Scheme = p
	}
	if h := first("X-Forwarded-Host"); plainHost(h) {
		u.Host = strings.ToLower(h)
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
