package auth

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

// SelfIssued signs a bearer token for the did:key of key, addressed to the
// venue whose DID is aud and valid for ttl: the token a client with its own
// key sends (the TypeScript SDK's Ed25519Auth makes the same).
func SelfIssued(key ed25519.PrivateKey, aud string, ttl time.Duration) (string, error) {
	did := venue.DIDKey(key.Public().(ed25519.PublicKey))
	now := time.Now()
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer: did, Subject: did, Audience: jwt.ClaimStrings{aud},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	})
	t.Header["kid"] = venue.Multikey(key.Public().(ed25519.PublicKey))
	return t.SignedString(key)
}

// venueToken signs a token for user, issued and addressed by the venue.
func venueToken(key ed25519.PrivateKey, venueDID, user string, now time.Time, ttl time.Duration) (string, error) {
	nonce := make([]byte, 12)
	rand.Read(nonce)
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.RegisteredClaims{
		Issuer: venueDID, Subject: user, Audience: jwt.ClaimStrings{venueDID},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)), ID: hex.EncodeToString(nonce),
	})
	return t.SignedString(key)
}
