package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/api/auth"
	"github.com/gridvenue/venue/runtime/ucan"
)

// user is a did:key identity a test acts as.
type user struct {
	DID string
	Key ed25519.PrivateKey
}

// newUser mints a fresh did:key identity.
func newUser(tb testing.TB) user {
	tb.Helper()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return user{DID: venue.DIDKey(pub), Key: key}
}

// token is a bearer token self-issued by u for venue m, valid for an hour.
func (u user) token(tb testing.TB, m *Main) string {
	tb.Helper()
	tok, err := auth.SelfIssued(u.Key, m.engine.Identity().DID, time.Hour)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// grant is a UCAN from u to aud granting att, valid for an hour.
func (u user) grant(tb testing.TB, aud string, att ...venue.Capability) string {
	tb.Helper()
	tok, err := ucan.Issue(u.Key, u.DID, aud, att, nil, time.Now().Add(time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

// asUser returns a client of m that sends a bearer token for a fresh
// did:key user, and that user.
func asUser(tb testing.TB, m *Main) (*client, user) {
	tb.Helper()
	u := newUser(tb)
	c := newClient(m)
	c.token = u.token(tb, m)
	return c, u
}
