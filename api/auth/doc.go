// Package auth is the venue's identity door: it decides who makes each
// request from its bearer token (an EdDSA token self-issued by a did:key, a
// venue-signed token, an OAuth provider's RS256 token checked against its
// JWKS, or a UCAN whose issuer becomes the caller), adds the grants of UCANs
// sent in X-Covia-Ucans, and serves the login door: /login lists the
// configured OAuth providers, /auth/{provider} starts an authorization-code
// flow with PKCE and /auth/{provider}/callback finishes it by issuing a
// venue-signed token.
//
// A request without a token is the venue's shared anonymous caller; what
// that caller may do is the engine's access policy. A bad token is always
// refused (401), never quietly treated as anonymous.
//
// *Auth is the REST door's Authenticator; for any other handler (the MCP
// and A2A endpoints) wrap it with Auth.Middleware, which puts the caller in
// the request's context (venue.CallerFrom) or answers 401 with
// {"error": "..."}:
//
//	mux.Handle("/mcp", a.Middleware(mcpHandler))
package auth
