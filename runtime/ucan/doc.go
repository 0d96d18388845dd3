// Package ucan verifies and issues UCAN capability tokens in the 0.10 JWT
// form the venue's clients send: an EdDSA JWT whose claims are iss, aud,
// att (a list of {with, can} grants), prf (the proof tokens the grants are
// delegated from, themselves UCAN JWTs), exp and nbf.
//
// A token's grants are proven when each is either on a resource its issuer
// owns (the DID a resource path starts with) or covered by a grant of one of
// its proofs, where each proof's audience is the token's issuer and no proof
// expires before the token does. Anything else is a broken link or a widened
// capability, and the whole token is refused. The verifying venue's own
// signature also roots grants on its users' resources (did:web DIDs under
// its own), since those users hold no key to sign with.
package ucan
