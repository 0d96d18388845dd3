package outbound

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// CheckHosts refuses an entry of an allow list, or with prefixes of a
// block list, that could match nothing: an entry is a host name, host:port,
// an address, or (in a block list) a prefix such as 203.0.113.0/24. A
// mistyped entry would otherwise block or allow nothing, silently: an
// audit's "127.0.0.0/33" left loopback reachable.
func CheckHosts(entries []string, prefixes bool) error {
	for _, e := range entries {
		if !validEntry(e, prefixes) {
			want := "a host name, host:port or an address"
			if prefixes {
				want += ", or a prefix such as 203.0.113.0/24"
			}
			return fmt.Errorf("%q is not %s", e, want)
		}
	}
	return nil
}

func validEntry(e string, prefixes bool) bool {
	if strings.Contains(e, "/") {
		_, err := netip.ParsePrefix(strings.Trim(e, "[]"))
		return prefixes && err == nil
	}
	if _, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
		return true
	}
	host := e
	if h, port, err := net.SplitHostPort(e); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return false
		}
		if _, err := netip.ParseAddr(h); err == nil {
			return true
		}
		host = h
	}
	return validHostName(host)
}

// validHostName reports whether h is a DNS name: labels of letters,
// digits, '-' and '_', a final dot allowed.
func validHostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
