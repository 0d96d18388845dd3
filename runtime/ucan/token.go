package ucan

import (
	"crypto/ed25519"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

// Limits on what one presented token may make the venue do.
const (
	MaxTokenBytes = 64 << 10 // one JWT, proofs included (each link nests base64 in base64)
	MaxDepth      = 8        // delegation links below the presented token
	MaxProofs     = 8        // proofs per token
	MaxGrants     = 32       // grants per token
	MaxTokens     = 64       // tokens verified for one presented token
)

// Version is the UCAN spec version written in ucv.
const Version = "0.10.0"

// Claims are a UCAN's claims.
type Claims struct {
	Issuer    string             `json:"iss"`
	Audience  string             `json:"aud"`
	Version   string             `json:"ucv,omitempty"`
	Att       []venue.Capability `json:"att"`
	Prf       []string           `json:"prf,omitempty"`
	Expires   *jwt.NumericDate   `json:"exp,omitempty"`
	NotBefore *jwt.NumericDate   `json:"nbf,omitempty"`
	Nonce     string             `json:"nnc,omitempty"`
}

// The jwt.Claims methods. Audience is checked by the verifier itself: a
// UCAN's aud is one DID, and which one depends on the link.
func (c *Claims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Expires, nil }
func (c *Claims) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (c *Claims) GetNotBefore() (*jwt.NumericDate, error)      { return c.NotBefore, nil }
func (c *Claims) GetIssuer() (string, error)                   { return c.Issuer, nil }
func (c *Claims) GetSubject() (string, error)                  { return "", nil }
func (c *Claims) GetAudience() (jwt.ClaimStrings, error)       { return jwt.ClaimStrings{c.Audience}, nil }

// Issue signs a UCAN from iss (whose key is key) to aud granting att, with
// the proofs prf, valid until exp.
func Issue(key ed25519.PrivateKey, iss, aud string, att []venue.Capability, prf []string, exp time.Time) (string, error) {
	c := &Claims{Issuer: iss, Audience: aud, Version: Version, Att: att, Prf: prf, Expires: jwt.NewNumericDate(exp)}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["kid"] = venue.Multikey(key.Public().(ed25519.PublicKey))
	return t.SignedString(key)
}
