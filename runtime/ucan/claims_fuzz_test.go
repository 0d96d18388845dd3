package ucan

import (
	"crypto/ed25519"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

// FuzzVerifyClaims fuzzes what FuzzVerify cannot reach past a signature:
// the claims. The input drives a small decoder that builds a tree of UCANs
// (issuers among four did:keys and a venue, audiences, expiry and nbf,
// grants with fuzzed resources and abilities, proofs nested three deep),
// signed with the test keys (now and then with the wrong one). Whatever
// the verifier accepts must hold, checked against the tree as built, not
// against the verifier's own reasoning:
//   - the caller is the DID whose key signed the token, and every token in
//     the chain was signed by its issuer's key;
//   - the token is for the audience asked for, each proof for the issuer
//     of the token it proves, and none outlives its proof;
//   - nothing is expired or not yet valid (beyond the leeway);
//   - the grants are the token's own, and each is traced through proofs
//     that cover it, link by link, to a root issued by its resource's
//     owner (or the venue, for its users): nothing widens.
func FuzzVerifyClaims(f *testing.F) {
	w := newWorld(f)
	for _, seed := range claimSeeds {
		f.Add(seed.data, "notes/x", "crud/read")
	}
	f.Fuzz(func(t *testing.T, data []byte, with, can string) {
		s := &choices{b: data, with: asJSON(with), can: asJSON(can)}
		top := w.build(s, 0, w.asked, nil)
		tok, err := w.verifier.Verify(top.token, w.asked)
		if err != nil {
			if code := venue.ErrorCode(err); code != venue.EINVALID && code != venue.EFORBIDDEN {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		w.mustHold(t, top, tok)
	})
}

// claimSeeds are inputs of FuzzVerifyClaims and what they build. Each is
// one token's decisions (grants-1, per grant derived-or-not and its parts,
// issuer, forged, audience, exp, nbf, proofs), then its proofs'. Past the
// end every decision is the first option: a chain of p0 delegating its w
// three links down to p1, who grants it to the audience.
var claimSeeds = []struct {
	name    string
	data    []byte
	depth   int    // of the accepted token
	refused string // or why it is refused
}{
	{"a chain of the first options", nil, 3, ""},
	{"the same, spelt out so that one change reaches any decision", make([]byte, 64), 3, ""},
	{"p1 grants its own w", []byte{0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1}, 0, ""},
	{"p1 passes on the venue's grant for its user", []byte{0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 1, ""},
	{"p1 widens p0's grant", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 1}, 0, "widened capability"},
	{"p1 forges p2's signature", []byte{0, 1, 1, 0, 0, 0, 7, 0, 0, 0, 1}, 0, "signature"},
	{"an expired proof", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1}, 0, "expired"},
	{"p1 widens crud to *", []byte{0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1}, 0, "widened capability"},
	{"p1 widens to a sibling", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 1}, 0, "widened capability"},
	{"p1 grants someone else's", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 3, 0, 0, 0, 0, 0, 1}, 0, "widened capability"},
	{"a proof for someone else", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 1}, 0, "broken link"},
	{"p1 outlives its proof", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1}, 0, "outlives"},
	{"a proof not valid yet", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1}, 0, "not valid yet"},
}

// TestVerifyClaims_Seeds: the fuzzer's seeds build what they say, so its
// decoder reaches accepted chains (the invariants are not checked on
// nothing) as well as refusals.
func TestVerifyClaims_Seeds(t *testing.T) {
	w := newWorld(t)
	for _, seed := range claimSeeds {
		t.Run(seed.name, func(t *testing.T) {
			top := w.build(&choices{b: seed.data, with: "notes/x", can: "crud/read"}, 0, w.asked, nil)
			tok, err := w.verifier.Verify(top.token, w.asked)
			if seed.refused != "" {
				if err == nil || !strings.Contains(err.Error(), seed.refused) {
					t.Fatalf("%+v %v, want refused for %q", tok, err, seed.refused)
				}
				return
			}
			if err != nil || tok.Depth != seed.depth {
				t.Fatalf("%+v %v, want depth %d", tok, err, seed.depth)
			}
			w.mustHold(t, top, tok)
		})
	}
}

// world is the fuzzer's fixed cast: four did:key parties and a venue.
type world struct {
	now      time.Time
	parties  []party // 0-3 did:keys, 4 the venue
	venueDID string
	asked    string // the audience tokens are verified for
	verifier *Verifier
}

func newWorld(tb testing.TB) *world {
	w := &world{now: time.Unix(1_800_000_000, 0), venueDID: "did:web:venue.example"}
	for range 4 {
		w.parties = append(w.parties, newParty(tb))
	}
	vp := newParty(tb)
	vp.did = w.venueDID
	w.parties = append(w.parties, vp)
	w.asked = w.parties[3].did
	w.verifier = &Verifier{Now: func() time.Time { return w.now }, Venue: w.venueDID,
		Key: func(did string) (ed25519.PublicKey, error) {
			if did == w.venueDID {
				return vp.key.Public().(ed25519.PublicKey), nil
			}
			return nil, venue.Errorf(venue.EFORBIDDEN, "unknown issuer")
		}}
	return w
}

// choices hands out the fuzzer's decisions; past the end of the input
// every decision is the first option, which builds a valid root.
type choices struct {
	b         []byte
	i         int
	with, can string
}

func (s *choices) n(k int) int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1]) % k
}

// asJSON is s as it reads back from a JWT's JSON (invalid UTF-8 replaced).
func asJSON(s string) string {
	b, _ := json.Marshal(s)
	json.Unmarshal(b, &s)
	return s
}

// node is a token as built, beside its JWT.
type node struct {
	iss, aud    int // party indexes; aud -1 is the audience asked for
	signer      int
	audDID      string
	exp         time.Time
	nbf         *time.Time
	att         []venue.Capability
	proofs      []*node
	token       string
	issDID      string
	signerDID   string
	wantedByTop bool
}

var (
	expOffsets = []time.Duration{time.Hour, 2 * time.Hour, 30 * time.Minute, -time.Hour, -10 * time.Second, 3 * time.Hour}
	nbfOffsets = []time.Duration{0, 0, time.Hour, -time.Hour, 10 * time.Second, 2 * time.Minute}
)

// build decodes one token issued to aud (usually: it may pick another)
// and its proofs, and signs them. A proof's grants derive from the grants
// of the token it proves (the same, broader, narrower, someone else's),
// and its issuer is by default their owner, so that the decoder's first
// options build valid chains and the fuzzer mutates near them.
func (w *world) build(s *choices, depth int, aud string, parent []venue.Capability) *node {
	nd := &node{}
	for range s.n(3) + 1 {
		nd.att = append(nd.att, w.grant(s, parent))
	}
	nd.iss = w.issuer(s.n(6), depth, nd.att[0])
	nd.signer = nd.iss
	if s.n(8) == 7 {
		nd.signer = (nd.iss + 1) % 5 // a forgery
	}
	nd.issDID, nd.signerDID, nd.audDID = w.parties[nd.iss].did, w.parties[nd.signer].did, aud
	if a := s.n(6); a >= 4 {
		nd.audDID = w.parties[a-4+2].did
	}
	nd.exp = w.now.Add(expOffsets[s.n(len(expOffsets))])
	if off := nbfOffsets[s.n(len(nbfOffsets))]; off != 0 {
		t := w.now.Add(off)
		nd.nbf = &t
	}
	if depth < 3 {
		for range []int{1, 0, 2}[s.n(3)] {
			nd.proofs = append(nd.proofs, w.build(s, depth+1, nd.issDID, nd.att))
		}
	}
	nd.token = w.sign(nd)
	return nd
}

// issuer decodes a token's issuer: choice 0 is the natural one (for the
// top token p1, for a proof the owner of its first grant), else a party.
func (w *world) issuer(choice, depth int, first venue.Capability) int {
	if choice > 0 {
		return choice - 1
	}
	if depth == 0 {
		return 1
	}
	owner, _, _ := strings.Cut(first.With, "/")
	for i, p := range w.parties {
		if p.did == owner {
			return i
		}
	}
	if strings.HasPrefix(owner, w.venueDID+":u:") {
		return 4
	}
	return 2
}

// grant decodes one grant: derived from one of the parent's grants, or
// any resource of some owner with any ability.
func (w *world) grant(s *choices, parent []venue.Capability) venue.Capability {
	if s.n(4) == 0 && len(parent) > 0 {
		return w.derive(s, parent[s.n(len(parent))])
	}
	owners := []string{w.parties[0].did, w.parties[1].did, w.venueDID + ":u:alice", "did:web:other.example:u:alice", w.venueDID, w.parties[2].did}
	suffixes := []string{"/w", "/w/notes", "/w/notes2", "", "/w/notes/x", "/" + s.with, "/w/" + s.with}
	cans := []string{"crud/read", "crud", "*", "crud/write", s.can, "crud/"}
	return venue.Capability{With: owners[s.n(len(owners))] + suffixes[s.n(len(suffixes))], Can: cans[s.n(len(cans))]}
}

// derive decodes a proof's grant from the grant g it should prove.
func (w *world) derive(s *choices, g venue.Capability) venue.Capability {
	switch s.n(7) {
	case 1: // a broader resource
		if i := strings.LastIndexByte(g.With, '/'); i > 0 {
			g.With = g.With[:i]
		}
	case 2: // a broader ability
		if i := strings.LastIndexByte(g.Can, '/'); i > 0 {
			g.Can = g.Can[:i]
		} else {
			g.Can = "*"
		}
	case 3: // a narrower resource
		g.With += "/" + s.with
	case 4: // a narrower ability
		if g.Can == "*" {
			g.Can = "crud"
		} else {
			g.Can += "/" + s.can
		}
	case 5: // a sibling resource sharing a prefix
		g.With += s.with
	case 6: // someone else's
		_, rest, _ := strings.Cut(g.With, "/")
		g.With = w.parties[s.n(5)].did + "/" + rest
	}
	return g
}

func (w *world) sign(nd *node) string {
	c := &Claims{Issuer: nd.issDID, Audience: nd.audDID, Version: Version, Att: nd.att, Expires: jwt.NewNumericDate(nd.exp)}
	if nd.nbf != nil {
		c.NotBefore = jwt.NewNumericDate(*nd.nbf)
	}
	for _, p := range nd.proofs {
		c.Prf = append(c.Prf, p.token)
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(w.parties[nd.signer].key)
	if err != nil {
		panic(err)
	}
	return tok
}

const fuzzLeeway = 30 * time.Second

// mustHold checks the invariants of an accepted token tok, built as top.
func (w *world) mustHold(t *testing.T, top *node, tok *Token) {
	t.Helper()
	if tok.Issuer != top.signerDID || tok.Audience != w.asked || top.audDID != tok.Audience {
		t.Fatalf("accepted %+v: issuer must be the signer %s, audience the one asked for", tok, top.signerDID)
	}
	if !slices.Equal(tok.Grants, top.att) {
		t.Fatalf("grants %v are not the token's own %v", tok.Grants, top.att)
	}
	w.mustBeSound(t, top)
	for _, g := range tok.Grants {
		if !w.traced(g, top) {
			t.Fatalf("grant %+v is not traced to a root issued by its owner", g)
		}
	}
}

// mustBeSound checks every token of the accepted tree: signed by its
// issuer, in its time window, each proof for its issuer and outliving it.
func (w *world) mustBeSound(t *testing.T, nd *node) {
	t.Helper()
	switch {
	case nd.signer != nd.iss:
		t.Fatalf("accepted a token of %s signed by %s", nd.issDID, nd.signerDID)
	case !nd.exp.Add(fuzzLeeway).After(w.now):
		t.Fatalf("accepted a token that expired at %s", nd.exp)
	case nd.nbf != nil && nd.nbf.After(w.now.Add(fuzzLeeway)):
		t.Fatalf("accepted a token not valid before %s", nd.nbf)
	}
	for _, p := range nd.proofs {
		if p.audDID != nd.issDID || p.exp.Before(nd.exp) {
			t.Fatalf("accepted a proof for %s expiring %s under a token of %s expiring %s", p.audDID, p.exp, nd.issDID, nd.exp)
		}
		w.mustBeSound(t, p)
	}
}

// traced reports whether g, granted by nd, is issued by its owner or
// covered by a grant of one of nd's proofs that is itself traced.
func (w *world) traced(g venue.Capability, nd *node) bool {
	owner, _, _ := strings.Cut(g.With, "/")
	if owner == nd.issDID || nd.issDID == w.venueDID && strings.HasPrefix(owner, w.venueDID+":u:") {
		return true
	}
	for _, p := range nd.proofs {
		for _, pg := range p.att {
			if covers(pg, g) && w.traced(pg, p) {
				return true
			}
		}
	}
	return false
}

// covers is the attenuation rule written out again, independently of
// venue.Capability: the resource at or below the parent's at a '/'
// boundary, the ability "*" or at or below the parent's, and "*" only
// from "*".
func covers(parent, child venue.Capability) bool {
	under := func(p, q string) bool {
		return q != "" && (p == q || strings.HasPrefix(p, q+"/") || strings.HasSuffix(q, "/") && strings.HasPrefix(p, q))
	}
	if child.Can == "*" {
		return parent.Can == "*" && under(child.With, parent.With)
	}
	return under(child.With, parent.With) && (parent.Can == "*" || under(child.Can, parent.Can))
}
