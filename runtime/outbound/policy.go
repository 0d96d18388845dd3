package outbound

import (
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Policy says where the venue may send requests. A zero Policy means the
// defaults documented on each field.
type Policy struct {
	AllowHosts   []string      // hosts exempt from the address checks, e.g. "127.0.0.1" or "localhost:9000"
	BlockHosts   []string      // hosts refused outright
	Timeout      time.Duration // whole request; default 30 s
	MaxResponse  int64         // bytes of response body; default 10 MiB
	MaxRedirects int           // default 5; a negative value allows none
}

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
	return listed(p.AllowHosts, host, hostport)
}

func (p *Policy) blocked(host, hostport string) bool {
	return listed(p.BlockHosts, host, hostport)
}

func listed(list []string, host, hostport string) bool {
	return slices.ContainsFunc(list, func(h string) bool {
		return strings.EqualFold(h, host) || strings.EqualFold(h, hostport)
	})
}

// cgnat is the shared address space of RFC 6598, private in all but name.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// internal reports whether ip is an address a request from the venue must
// not reach unless its host is allowed: loopback, private (including IPv6
// unique-local, where cloud metadata services also live), link-local (where
// 169.254.169.254 is), carrier-grade NAT, multicast or unspecified.
func internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip) ||
		ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})
}
