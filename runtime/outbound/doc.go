// Package outbound makes the venue's own HTTP requests to the outside
// world (operations' HTTP calls, bridged MCP servers) under one policy:
// http and https only, no request to loopback, private, link-local,
// carrier-grade NAT, multicast, unspecified, documentation or other
// special-purpose addresses, nor to the venue host's own (checked on the
// addresses actually dialled, after DNS resolution, on every redirect)
// unless the host is allowed by name, a timeout and a response size cap,
// and credentials that never follow a redirect to another host.
package outbound
