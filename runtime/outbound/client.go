package outbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	venue "github.com/gridvenue/venue"
)

// Client sends requests under a Policy. It is safe for concurrent use.
type Client struct {
	policy   Policy
	resolver *net.Resolver
	http     *http.Client
	own      []netip.Addr // the venue host's own addresses, read at New
}

// New returns a client enforcing p.
func New(p Policy) *Client {
	p.setDefaults()
	c := &Client{policy: p, resolver: net.DefaultResolver, own: ownAddrs()}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext:            c.dialContext(dialer),
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  p.Timeout,
		MaxResponseHeaderBytes: MaxHeaderBytes,
		Proxy:                  nil, // a proxy would dial on our behalf, past the address checks
	}
	c.http = &http.Client{Transport: tr, Timeout: p.Timeout, CheckRedirect: c.checkRedirect}
	return c
}

// CheckURL refuses a URL the policy forbids before any connection is made:
// a scheme other than http(s), no host, a blocked host, or a host that
// resolves to an internal address. The check is repeated on the addresses
// actually dialled.
func (c *Client) CheckURL(ctx context.Context, u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return venue.Errorf(venue.EINVALID, "Only HTTP/HTTPS schemes are allowed, got: %s", u.Scheme)
	}
	if u.Hostname() == "" {
		return venue.Errorf(venue.EINVALID, "URL has no host: %s", redactURL(u))
	}
	_, err := c.resolve(ctx, u.Hostname(), hostPort(u))
	return err
}

// Do sends req and returns the response with its body bounded by
// MaxResponse (reading past it fails with ETOOLARGE). secret lists header
// names whose values must not follow a redirect to another host.
func (c *Client) Do(req *http.Request, secret []string) (*http.Response, error) {
	if err := c.CheckURL(req.Context(), req.URL); err != nil {
		return nil, err
	}
	req = req.WithContext(context.WithValue(req.Context(), secretHeadersKey{}, secretHeaders{scheme: req.URL.Scheme, host: req.URL.Host, names: secret}))
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, describe(err, req.URL)
	}
	resp.Body = &limitedBody{r: resp.Body, left: c.policy.MaxResponse, limit: c.policy.MaxResponse, url: req.URL}
	return resp, nil
}

// resolve returns the addresses of host a request may dial, refusing
// blocked hosts and internal addresses unless the host is allowed.
func (c *Client) resolve(ctx context.Context, host, hostport string) ([]netip.Addr, error) {
	if c.policy.blocked(host, hostport, nil) {
		return nil, venue.Errorf(venue.EFORBIDDEN, "Host is blocked: %s", host)
	}
	addrs, err := c.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return nil, venue.Errorf(venue.EINVALID, "Cannot resolve host: %s", host)
	}
	if c.policy.blocked(host, hostport, addrs) {
		return nil, venue.Errorf(venue.EFORBIDDEN, "Host is blocked: %s", host)
	}
	if c.policy.allowed(host, hostport) {
		return addrs, nil
	}
	for _, a := range addrs {
		if internal(a) {
			return nil, venue.Errorf(venue.EFORBIDDEN, "URL targets a private/internal address: %s (resolved to %s). Add the host to allowHosts if this is intentional.", host, a.Unmap())
		}
		if c.isOwn(a) {
			return nil, venue.Errorf(venue.EFORBIDDEN, "URL targets an address of the venue's own host: %s (resolved to %s). Add the host to allowHosts if this is intentional.", host, a.Unmap())
		}
	}
	return addrs, nil
}

// ownAddrs lists the addresses of the host's interfaces. A service bound
// to every interface answers on each of them, so one that is public (or
// in a range the address checks let through) would reach the venue host
// itself as 127.0.0.1 would. Addresses added after the start are not
// known; on failure the list is empty and the other checks still hold.
func ownAddrs() []netip.Addr {
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var own []netip.Addr
	for _, ia := range ifaddrs {
		if n, ok := ia.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok {
				own = append(own, a.Unmap())
			}
		}
	}
	return own
}

// isOwn reports whether a is one of the host's own addresses, in any zone,
// or an IPv6 address carrying one for a gateway to forward to (as internal
// sees through NAT64 and 6to4).
func (c *Client) isOwn(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if slices.ContainsFunc(c.own, func(o netip.Addr) bool { return o.WithZone("") == a }) {
		return true
	}
	v4, ok := embedded(a)
	return ok && c.isOwn(v4)
}

// dialContext dials only addresses resolve approved, so a DNS answer that
// changes between the check and the connection (rebinding) gains nothing.
func (c *Client) dialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs, err := c.resolve(ctx, host, addr)
		if err != nil {
			return nil, err
		}
		var errs []error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			errs = append(errs, err)
		}
		return nil, errors.Join(errs...)
	}
}

type secretHeadersKey struct{}

// secretHeaders is the origin the credentials were attached for and the
// headers that hold them.
type secretHeaders struct {
	scheme, host string
	names        []string
}

// keeps reports whether the credentials may still go to target, reached
// through the hops in via: only while every hop stays on the original host
// and never falls from https to http. A detour through another host drops
// them for good (net/http copies the first request's headers onto every
// hop, so the host of this hop alone cannot tell).
func (sh secretHeaders) keeps(target *url.URL, via []*http.Request) bool {
	same := func(u *url.URL) bool {
		return strings.EqualFold(u.Host, sh.host) && !(sh.scheme == "https" && u.Scheme != "https")
	}
	if !same(target) {
		return false
	}
	for _, r := range via {
		if !same(r.URL) {
			return false
		}
	}
	return true
}

// checkRedirect bounds redirects, re-checks each target's scheme, never
// sends a Referer (net/http would send the previous URL, whose path or
// query may hold a filled-in secret, to wherever the redirect points), and
// drops the credential headers unless the credentials may follow (keeps).
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > max(c.policy.MaxRedirects, 0) {
		return venue.Errorf(venue.EINVALID, "Stopped after %d redirects", len(via)-1)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return venue.Errorf(venue.EINVALID, "Only HTTP/HTTPS schemes are allowed, got: %s", req.URL.Scheme)
	}
	req.Header.Del("Referer")
	if sh, ok := req.Context().Value(secretHeadersKey{}).(secretHeaders); ok && !sh.keeps(req.URL, via) {
		for _, h := range sh.names {
			req.Header.Del(h)
		}
		req.Header.Del("Authorization")
	}
	return nil
}

// describe words a transport failure; a policy refusal keeps its own error.
func describe(err error, u *url.URL) error {
	var ve *venue.Error
	if errors.As(err, &ve) {
		return ve
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return venue.Errorf(venue.ETIMEOUT, "Request to %s timed out", u.Hostname())
	}
	return venue.Errorf(venue.EUNAVAILABLE, "Request to %s failed: %s", u.Hostname(), cause(err))
}

// cause words what made a request fail: the kinds of failure recognised
// here in the venue's words, any other as its innermost error says it,
// whole. Cutting a message at its last ": ", as this once did, cut inside
// the text a server sent, which net/http quotes (bad Content-Length
// "Bearer abcd: efghijkl"), leaving the masker a piece of a credential it
// did not know.
func cause(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens at that address and port"
	case errors.Is(err, syscall.ECONNRESET):
		return "the server reset the connection"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to the host's address"
	case errors.Is(err, io.EOF):
		return "the server closed the connection without answering"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection before the end of its answer"
	case errors.Is(err, context.Canceled):
		return "the request was cancelled"
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

// redactURL drops the query and user info, which may hold credentials.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery = nil, ""
	return c.String()
}

// limitedBody fails a read past the response size cap rather than
// silently truncating, and words a failed read as describe does (a body
// cut off by the timeout is a timeout).
type limitedBody struct {
	r     io.ReadCloser
	left  int64 // bytes the body may still hold; below 0 once past the limit
	limit int64
	url   *url.URL
}

func (b *limitedBody) tooLarge() error {
	return venue.Errorf(venue.ETOOLARGE, "Response body exceeds the venue's limit of %d bytes (%s, counted after a Content-Encoding such as gzip is undone)", b.limit, mib(b.limit))
}

// mib writes n bytes in MiB, as the documentation states limits.
func mib(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, b.tooLarge()
	}
	if err != nil && err != io.EOF {
		err = describe(err, b.url)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }
