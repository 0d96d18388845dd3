package rest

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// foreignPages keeps web pages of other sites from using the venue through
// a browser, where the browser's position (on this machine, where the
// anonymous caller may write) is the only credential:
//   - a request that changes something and comes from a page of another
//     origin (by Sec-Fetch-Site or Origin) is refused: a page may send a
//     form-like POST anywhere, and the venue reads such bodies as JSON;
//   - when Options.Hosts is set (a venue listening on loopback), a request
//     naming any other host is refused: a page whose name an attacker
//     points at 127.0.0.1 (DNS rebinding) would otherwise be same-origin.
//
// Programs send neither header and name the host they dialled, so they
// are never refused.
func (s *Server) foreignPages(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusForbidden, "Cross-origin request refused: a web page of another site may not change "+
			"anything here; call the API from a program, or from a page this venue serves")
	}))
	guarded := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(s.hosts) > 0 && !knownHost(s.hosts, r.Host) {
			writeJSONError(w, http.StatusMisdirectedRequest, fmt.Sprintf("This venue does not answer to host %q: "+
				"it listens on loopback and answers to localhost, loopback addresses and the host of its url setting; "+
				"use one of those, or set url (VENUE_URL) to the name clients use", clipPath(r.Host)))
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// knownHost reports whether a request's Host names a loopback address or
// one of hosts, compared as DNS does: without case or a final dot.
func knownHost(hosts []string, hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Unmap().IsLoopback() {
			return true
		}
	}
	return slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(strings.TrimSuffix(h, "."), host) })
}
