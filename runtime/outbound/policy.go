package outbound

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Policy says where the venue may send requests. A zero Policy means the
// defaults documented on each field.
type Policy struct {
	AllowHosts   []string      // hosts exempt from the address checks, e.g. "127.0.0.1" or "localhost:9000"
	BlockHosts   []string      // hosts refused outright
	Timeout      time.Duration // whole request; default 30 s
	MaxResponse  int64         // bytes of response body, after a Content-Encoding is undone; default 10 MiB
	MaxRedirects int           // default 5; a negative value allows none
}

// MaxHeaderBytes bounds a response's status line and headers (net/http's
// own default is 10 MiB): what a caller makes of them, in JSON say, stays
// small beside the body.
const MaxHeaderBytes = 512 << 10

func (p *Policy) setDefaults() {
	if p.Timeout <= 0 {
		p.Timeout = 30 * time.Second
	}
	if p.MaxResponse <= 0 {
		p.MaxResponse = 10 << 20
	}
	if p.MaxRedirects == 0 {
		p.MaxRedirects = 5
	}
}

// allowed reports whether host (and host:port) is on the allow list.
func (p *Policy) allowed(host, hostport string) bool {
	return slices.ContainsFunc(p.AllowHosts, func(e string) bool { return entryMatches(e, host, hostport, nil) })
}

// blocked reports whether host, or one of the addresses it resolved to, is
// on the block list. An entry is a host name (in any case, with or without
// a final dot), an address or a prefix such as 203.0.113.0/24, each with a
// port or not: an address or prefix matches whatever name resolves into
// it, and an IPv4 one also its IPv4-mapped IPv6 form.
func (p *Policy) blocked(host, hostport string, addrs []netip.Addr) bool {
	return slices.ContainsFunc(p.BlockHosts, func(e string) bool { return entryMatches(e, host, hostport, addrs) })
}

// entryMatches reports whether a list entry names host (and, if it gives
// one, the port of hostport), by name as DNS compares names, or as an
// address or prefix holding host or one of addrs. Ports and addresses are
// compared as numbers, never as text: an audit reached a blocked
// 127.0.0.1:28121 as 127.0.0.1:028121, as localhost:28121 and as
// [::ffff:127.0.0.1]:28121.
func entryMatches(entry, host, hostport string, addrs []netip.Addr) bool {
	eh := entry
	if h, port, err := net.SplitHostPort(entry); err == nil {
		if !samePort(port, hostport) {
			return false
		}
		eh = h
	}
	norm := func(s string) string { return strings.ToLower(strings.TrimSuffix(strings.Trim(s, "[]"), ".")) }
	if norm(eh) == norm(host) {
		return true
	}
	pfx, ok := parsePrefix(eh)
	if !ok {
		return false
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && pfx.Contains(a.Unmap()) {
		return true
	}
	return slices.ContainsFunc(addrs, func(a netip.Addr) bool { return pfx.Contains(a.Unmap()) })
}

// samePort reports whether port and hostport's port are one number.
func samePort(port, hostport string) bool {
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	a, err1 := strconv.ParseUint(port, 10, 16)
	b, err2 := strconv.ParseUint(p, 10, 16)
	return err1 == nil && err2 == nil && a == b
}

// parsePrefix reads a list entry that is an address or a prefix. An
// IPv4-mapped prefix (::ffff:127.0.0.0/104) is read as the IPv4 one, since
// addresses are compared unmapped.
func parsePrefix(s string) (netip.Prefix, bool) {
	s = strings.Trim(s, "[]")
	if pfx, err := netip.ParsePrefix(s); err == nil {
		if a := pfx.Addr(); a.Is4In6() && pfx.Bits() >= 96 {
			return netip.PrefixFrom(a.Unmap(), pfx.Bits()-96).Masked(), true
		}
		return pfx.Masked(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// reserved are the special-purpose ranges IANA's registries (RFC 6890
// and its updates) list as not globally reachable, beyond those netip
// names, and a few more no request from the venue has reason to reach:
// "this network" (0/8), carrier-grade NAT (RFC 6598, private in all but
// name), IETF protocol assignments, documentation (TEST-NET-1 to 3,
// 2001:db8::/32, 3fff::/20: never routed, so a host using one, as a test
// network might, is local), the deprecated 6to4 relay anycast,
// benchmarking, the reserved class E, discard-only and dummy IPv6
// prefixes, SRv6 SIDs, deprecated IPv6 site-local, and Teredo (within the
// IETF's 2001::/23), whose addresses hide an IPv4 server and client.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64, whose /48 format places the IPv4 address elsewhere
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("100:0:0:1::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("5f00::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// embedding are IPv6 ranges that carry an IPv4 address a gateway may
// forward to: NAT64's well-known prefix and IPv4-compatible addresses in
// their last four bytes, 6to4 in bytes 2 to 5. (The local-use NAT64 prefix
// is reserved whole: see reserved.)
var embedding = []struct {
	pfx netip.Prefix
	at  int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// internal reports whether ip is an address a request from the venue must
// not reach unless its host is allowed: loopback, private (including IPv6
// unique-local, where cloud metadata services also live), link-local (where
// 169.254.169.254 is), multicast, unspecified, reserved, or an IPv6 address
// embedding an IPv4 address that is one of these.
func internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return true
	}
	if slices.ContainsFunc(reserved, func(p netip.Prefix) bool { return p.Contains(ip) }) {
		return true
	}
	if v4, ok := embedded(ip); ok {
		return internal(v4)
	}
	return false
}

// embedded returns the IPv4 address an IPv6 address of embedding carries.
func embedded(ip netip.Addr) (netip.Addr, bool) {
	for _, e := range embedding {
		if e.pfx.Contains(ip) {
			b := ip.As16()
			return netip.AddrFrom4([4]byte(b[e.at : e.at+4])), true
		}
	}
	return netip.Addr{}, false
}
