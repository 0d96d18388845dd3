package ucan

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

type party struct {
	did string
	key ed25519.PrivateKey
}

func newParty(t testing.TB) party {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return party{venue.DIDKey(pub), key}
}

func (p party) issue(t testing.TB, aud string, att []venue.Capability, prf []string, exp time.Time) string {
	tok, err := Issue(p.key, p.did, aud, att, prf, exp)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestVerifier_Verify(t *testing.T) {
	alice, bob, carol, mallory := newParty(t), newParty(t), newParty(t), newParty(t)
	hour := time.Now().Add(time.Hour)
	read := []venue.Capability{{With: alice.did + "/w/notes", Can: "crud/read"}}
	root := alice.issue(t, bob.did, read, nil, hour)
	all := alice.issue(t, bob.did, []venue.Capability{{With: alice.did + "/w", Can: "crud"}}, nil, hour)
	v := &Verifier{}
	for _, tc := range []struct {
		name     string
		token    string
		aud      string
		wantCode string
		wantMsg  string
	}{
		{"owner grants own resource", root, bob.did, "", ""},
		{"delegation narrows", bob.issue(t, carol.did, []venue.Capability{{With: alice.did + "/w/notes/today", Can: "crud/read"}}, []string{all}, hour), carol.did, "", ""},
		{"ability prefix covers", bob.issue(t, carol.did, []venue.Capability{{With: alice.did + "/w/x", Can: "crud/write"}}, []string{all}, hour), carol.did, "", ""},
		{"issued to someone else", root, carol.did, venue.EFORBIDDEN, "issued to someone else"},
		{"expired", alice.issue(t, bob.did, read, nil, time.Now().Add(-time.Hour)), bob.did, venue.EFORBIDDEN, "expired"},
		{"widened ability", bob.issue(t, carol.did, []venue.Capability{{With: alice.did + "/w/notes", Can: "crud/write"}}, []string{root}, hour), carol.did, venue.EFORBIDDEN, "widened capability"},
		{"widened resource", bob.issue(t, carol.did, []venue.Capability{{With: alice.did + "/w", Can: "crud/read"}}, []string{root}, hour), carol.did, venue.EFORBIDDEN, "widened capability"},
		{"sibling prefix is not a parent", bob.issue(t, carol.did, []venue.Capability{{With: alice.did + "/w/notes2", Can: "crud/read"}}, []string{root}, hour), carol.did, venue.EFORBIDDEN, "widened capability"},
		{"no proof for another's resource", mallory.issue(t, carol.did, read, nil, hour), carol.did, venue.EFORBIDDEN, "widened capability"},
		{"broken link", carol.issue(t, mallory.did, read, []string{root}, hour), mallory.did, venue.EFORBIDDEN, "broken link"},
		{"outlives its proof", bob.issue(t, carol.did, read, []string{alice.issue(t, bob.did, read, nil, time.Now().Add(time.Minute))}, hour), carol.did, venue.EFORBIDDEN, "outlives"},
		{"wrongly signed", resign(t, root, mallory.key), bob.did, venue.EFORBIDDEN, "signature"},
		{"malformed", "not.a.jwt", bob.did, venue.EINVALID, "well-formed"},
		{"empty", "", bob.did, venue.EINVALID, "well-formed"},
		{"grants nothing", alice.issue(t, bob.did, nil, nil, hour), bob.did, venue.EINVALID, "grants nothing"},
		{"bad proof fails the chain", bob.issue(t, carol.did, read, []string{"garbage"}, hour), carol.did, venue.EINVALID, "well-formed"},
		{"a claim of the wrong type", audAsArray(t, alice, bob.did, hour), bob.did, venue.EINVALID,
			"UCAN is not a well-formed EdDSA JWT: the claim aud is a JSON array, where it must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := v.Verify(tc.token, tc.aud)
			if venue.ErrorCode(err) != tc.wantCode && !(tc.wantCode == "" && err == nil) {
				t.Fatalf("err = %v, want code %q", err, tc.wantCode)
			}
			if err != nil && !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("err = %v, want it to say %q", err, tc.wantMsg)
			}
			if err == nil && len(tok.Grants) == 0 {
				t.Fatal("no grants")
			}
		})
	}
}

// TestVerifier_VenueRoots: the venue signs for the users it holds keys
// for none of (did:web users under its DID) and for its own venue-wide
// abilities; its signature roots nothing else.
func TestVerifier_VenueRoots(t *testing.T) {
	venueKey, bob, carol := newParty(t), newParty(t), newParty(t)
	const venueDID = "did:web:venue.example"
	user := venueDID + ":u:google-123"
	hour := time.Now().Add(time.Hour)
	v := &Verifier{Venue: venueDID, Public: venueDID + ":u:public", Key: func(did string) (ed25519.PublicKey, error) {
		if did != venueDID {
			return nil, venue.Errorf(venue.EFORBIDDEN, "unknown issuer")
		}
		return venueKey.key.Public().(ed25519.PublicKey), nil
	}}
	byVenue := func(key ed25519.PrivateKey, aud string, g venue.Capability, prf ...string) string {
		tok, err := Issue(key, venueDID, aud, []venue.Capability{g}, prf, hour)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	userNotes := venue.Capability{With: user + "/w/notes", Can: "crud/read"}
	manage := venue.Capability{With: venueDID, Can: "mcp/manage"}
	rooted := byVenue(venueKey.key, bob.did, userNotes)
	for _, tc := range []struct {
		name, token, aud, wantMsg string
	}{
		{"a grant on a user's namespace", rooted, bob.did, ""},
		{"a venue-wide ability", byVenue(venueKey.key, bob.did, manage), bob.did, ""},
		{"delegated on from a venue root", bob.issue(t, carol.did, []venue.Capability{{With: user + "/w/notes/x", Can: "crud/read"}}, []string{rooted}, hour), carol.did, ""},
		{"widened past a venue root", bob.issue(t, carol.did, []venue.Capability{{With: user + "/w", Can: "crud/read"}}, []string{rooted}, hour), carol.did, "widened capability"},
		{"a did:key's namespace", byVenue(venueKey.key, bob.did, venue.Capability{With: carol.did + "/w", Can: "crud/read"}), bob.did, "widened capability"},
		{"another venue's user", byVenue(venueKey.key, bob.did, venue.Capability{With: "did:web:other.example:u:x/w", Can: "crud/read"}), bob.did, "widened capability"},
		{"a DID that only starts like the venue's", byVenue(venueKey.key, bob.did, venue.Capability{With: venueDID + "evil:u:x/w", Can: "crud/read"}), bob.did, "widened capability"},
		{"the anonymous identity's namespace", byVenue(venueKey.key, bob.did, venue.Capability{With: venueDID + ":u:public/w", Can: "crud/read"}), bob.did, "widened capability"},
		{"the venue's DID signed by another key", byVenue(carol.key, bob.did, userNotes), bob.did, "signature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Verify(tc.token, tc.aud)
			if tc.wantMsg == "" && err != nil || tc.wantMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.wantMsg)) {
				t.Fatalf("err = %v, want %q", err, tc.wantMsg)
			}
		})
	}
	chain := bob.issue(t, carol.did, []venue.Capability{userNotes}, []string{rooted}, hour)
	if tok, err := v.Verify(chain, carol.did); err != nil || tok.Depth != 1 || tok.Root != venueDID || tok.Issuer != bob.did {
		t.Fatalf("%+v %v: want depth 1 from the venue's root", tok, err)
	}
	if _, err := (&Verifier{Key: v.Key}).Verify(rooted, bob.did); err == nil {
		t.Fatal("a verifier that does not know the venue takes its signature as the user's")
	}
}

func TestVerifier_ChainDepth(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	parties := make([]party, MaxDepth+3)
	for i := range parties {
		parties[i] = newParty(t)
	}
	att := []venue.Capability{{With: parties[0].did + "/w", Can: "crud/read"}}
	tok := parties[0].issue(t, parties[1].did, att, nil, hour)
	for i := 1; i < len(parties)-1; i++ {
		tok = parties[i].issue(t, parties[i+1].did, att, []string{tok}, hour)
	}
	_, err := (&Verifier{}).Verify(tok, parties[len(parties)-1].did)
	if venue.ErrorCode(err) != venue.EFORBIDDEN || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v", err)
	}
}

// resign replaces a token's signature with one by another key.
// audAsArray is a token signed by p whose aud is an array, as a JWT of
// another kind may carry it.
func audAsArray(t *testing.T, p party, aud string, exp time.Time) string {
	claims := jwt.MapClaims{"iss": p.did, "aud": []string{aud}, "exp": exp.Unix(), "att": []map[string]string{{"with": p.did + "/w", "can": "crud"}}}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(p.key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func resign(t *testing.T, tok string, key ed25519.PrivateKey) string {
	i := strings.LastIndexByte(tok, '.')
	other := newParty(t)
	forged, _ := Issue(key, other.did, "x", []venue.Capability{{With: other.did, Can: "*"}}, nil, time.Now().Add(time.Hour))
	return tok[:i] + forged[strings.LastIndexByte(forged, '.'):]
}

func FuzzVerify(f *testing.F) {
	alice, bob := newParty(f), newParty(f)
	f.Add(alice.issue(f, bob.did, []venue.Capability{{With: alice.did + "/w", Can: "crud"}}, nil, time.Now().Add(time.Hour)))
	f.Add("eyJhbGciOiJFZERTQSJ9.e30.")
	f.Add("a.b.c")
	f.Add("")
	v := &Verifier{}
	f.Fuzz(func(t *testing.T, tok string) {
		got, err := v.Verify(tok, bob.did)
		if err == nil && got.Issuer == "" {
			t.Fatal("verified a token without an issuer")
		}
		if err != nil && venue.ErrorCode(err) != venue.EINVALID && venue.ErrorCode(err) != venue.EFORBIDDEN {
			t.Fatalf("uncoded error %v", err)
		}
	})
}

// TestVerifier_MaxLifetime: a venue bounds how far ahead any link of a
// chain may end (an audit's did:key signed one for
// a hundred years, which its holder could use until then).
func TestVerifier_MaxLifetime(t *testing.T) {
	alice, bob := newParty(t), newParty(t)
	read := []venue.Capability{{With: alice.did + "/w/notes", Can: "crud/read"}}
	v := &Verifier{MaxLifetime: 24 * time.Hour}
	if _, err := v.Verify(alice.issue(t, bob.did, read, nil, time.Now().Add(23*time.Hour)), bob.did); err != nil {
		t.Fatalf("a day's UCAN: %v", err)
	}
	long := alice.issue(t, bob.did, read, nil, time.Now().AddDate(100, 0, 0))
	if _, err := v.Verify(long, bob.did); venue.ErrorCode(err) != venue.EFORBIDDEN || !strings.Contains(venue.ErrorMessage(err), "ends more than 1 days from now") {
		t.Fatalf("a century's UCAN: %v", err)
	}
	carol := newParty(t)
	chained := bob.issue(t, carol.did, read, []string{long}, time.Now().Add(time.Hour))
	if _, err := v.Verify(chained, carol.did); err == nil || !strings.Contains(venue.ErrorMessage(err), "ends more than") {
		t.Fatalf("a chain whose proof lasts a century: %v", err)
	}
	if _, err := (&Verifier{}).Verify(long, bob.did); err != nil {
		t.Fatalf("no bound set: %v", err)
	}
}

// TestVerifier_Revoked: a chain is refused if any token in it is revoked,
// and the hook is asked once, about every token, the token first.
func TestVerifier_Revoked(t *testing.T) {
	alice, bob, carol := newParty(t), newParty(t), newParty(t)
	read := []venue.Capability{{With: alice.did + "/w/notes", Can: "crud/read"}}
	exp := time.Now().Add(time.Hour)
	root := alice.issue(t, bob.did, read, nil, exp)
	leaf := bob.issue(t, carol.did, read, []string{root}, exp)
	revoked := errors.New("revoked")
	for _, tc := range []struct {
		name    string
		revoked string
		want    error
	}{
		{"none revoked", "", nil},
		{"the token itself", leaf, revoked},
		{"a proof it rests on", root, revoked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked [][]string
			v := &Verifier{Revoked: func(tokens []string) error {
				asked = append(asked, tokens)
				if slices.Contains(tokens, tc.revoked) {
					return revoked
				}
				return nil
			}}
			_, err := v.Verify(leaf, carol.did)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
			if len(asked) != 1 || !slices.Equal(asked[0], []string{leaf, root}) {
				t.Fatalf("asked about %d chains %q, want once about the leaf and its root", len(asked), asked)
			}
		})
	}
}
