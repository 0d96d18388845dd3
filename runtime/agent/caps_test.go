package agent

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

const owner = "did:key:z6MkOwner"

func TestParseCaps(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"absent", ``, `null`, ""},
		{"null", `null`, `null`, ""},
		{"empty grants nothing", `[]`, `[]`, ""},
		{"relative path under the owner", `[{"with": "w/notes", "can": "crud/read"}]`, `[{"with":"did:key:z6MkOwner/w/notes","can":"crud/read"}]`, ""},
		{"leading slash", `[{"with": "/w/notes", "can": "crud"}]`, `[{"with":"did:key:z6MkOwner/w/notes","can":"crud"}]`, ""},
		{"DID-qualified", `[{"with": "did:key:z6MkBob/w/x", "can": "*"}]`, `[{"with":"did:key:z6MkBob/w/x","can":"*"}]`, ""},
		{"a whole DID", `[{"with": "did:key:z6MkBob", "can": "crud/read"}]`, `[{"with":"did:key:z6MkBob","can":"crud/read"}]`, ""},
		{"not a DID", `[{"with": "did:key bob/w", "can": "crud"}]`, "", "is not a DID"},
		{"not a list", `{"with": "w"}`, "", "caps must be a list"},
		{"empty with", `[{"with": "", "can": "crud"}]`, "", "caps[0].with: required"},
		{"dot-dot", `[{"with": "w/../s", "can": "crud"}]`, "", "caps[0].with"},
		{"bad ability", `[{"with": "w", "can": "crud read"}]`, "", "caps[0].can"},
		{"empty ability", `[{"with": "w", "can": ""}]`, "", "caps[0].can"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caps, err := parseCaps(owner, json.RawMessage(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(venue.ErrorMessage(err), tc.err) || venue.ErrorCode(err) != venue.EINVALID {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := json.Marshal(caps); string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestAgentCaller(t *testing.T) {
	c := agentCaller(venue.Caller{DID: owner}, []grant{
		{With: owner + "/w/notes", Can: "crud/read"}, {With: "did:key:z6MkBob/w/x", Can: "crud/read", Expires: 2000}}, map[string]any{"provider": "anthropic"}, 1000)
	if !venue.Holds(c.Bound(), owner+"/j", venue.AbilityInvoke) || venue.Holds(c.Bound(), owner+"/w/other", "crud/read") ||
		!venue.Holds(c.Bound(), owner+"/s/ANTHROPIC_API_KEY", "crud/read") || venue.Holds(c.Bound(), owner+"/s/OPENAI_API_KEY", "crud/read") {
		t.Fatalf("bound %v", c.Bound())
	}
	if len(c.Grants()) != 1 || c.Grants()[0].With != "did:key:z6MkBob/w/x" {
		t.Fatalf("grants %v", c.Grants())
	}
	// At 2000 the foreign cap's proof has expired: held neither as a grant
	// nor within the bound.
	if late := agentCaller(venue.Caller{DID: owner}, []grant{{With: "did:key:z6MkBob/w/x", Can: "crud/read", Expires: 2000}}, nil, 2000); len(late.Grants()) != 0 ||
		venue.Holds(late.Bound(), "did:key:z6MkBob/w/x", "crud/read") {
		t.Fatalf("an expired cap is held: %+v", late.Authority)
	}
	// A foreign cap with no expiry (no proof behind it) only bounds.
	if bare := agentCaller(venue.Caller{DID: owner}, []grant{{With: "did:key:z6MkBob/w/x", Can: "crud/read"}}, nil, 1000); len(bare.Grants()) != 0 {
		t.Fatalf("an unproved cap became a grant: %+v", bare.Authority)
	}
	if d := agentCaller(venue.Caller{DID: owner}, nil, nil, 1000); !venue.Holds(d.Bound(), owner+"/w/any", "crud/write") || len(d.Grants()) != 0 {
		t.Fatalf("default %v", d.Authority)
	}
}

// FuzzParseCaps: any input is parsed or refused with EINVALID, and what is
// parsed stays under a DID.
func FuzzParseCaps(f *testing.F) {
	for _, s := range []string{`[{"with": "w/notes", "can": "crud/read"}]`, `[{"with": "did:key:x/w", "can": "*"}]`, `[{"with": "/", "can": "a"}]`, `null`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		caps, err := parseCaps(owner, json.RawMessage(in))
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("%q: %v", in, err)
			}
			return
		}
		for _, c := range caps {
			did, rel, _ := strings.Cut(c.With, "/")
			if !didPattern.MatchString(did) || strings.Contains(rel, "..") || c.Can == "" {
				t.Fatalf("%q gave %+v", in, c)
			}
		}
	})
}
