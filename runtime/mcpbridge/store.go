package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Scopes of a bridge.
const (
	ScopeUser  = "user"
	ScopeVenue = "venue"
)

// AbilityManage is the venue-wide ability that venue-scope bridges need.
const AbilityManage = "mcp/manage"

// record is a bridge as kept at w/mcp/<name> of its owner (the caller, or
// the venue for scope "venue"). It holds references only: Auth names the
// adder's secret (AddedBy's); VenueSecret is the venue's copy of it, which
// venues made for scope "venue" before they resolved the adder's secret at
// each call, read only for a record without AddedBy.
type record struct {
	Name        string   `json:"name"`
	URL         string   `json:"url"`
	Scope       string   `json:"scope"`
	Auth        string   `json:"auth,omitempty"`
	VenueSecret string   `json:"venueSecret,omitempty"`
	AddedBy     string   `json:"addedBy,omitempty"`
	Tools       []string `json:"tools"`
	Added       int64    `json:"added"`
	Refreshed   int64    `json:"refreshed"`
	// Proof is the venue's attestation that it wrote this record (see
	// proven): a module the owner runs may write w/mcp too.
	Proof string `json:"proof,omitempty"`
}

// proofPurpose scopes the attestation of bridge records.
const proofPurpose = "mcp bridge record"

// venueProofPurpose scopes the attestation of venue-scope bridge records,
// which also covers whose secret the bridge sends (addedBy): a proof made
// for a record of another scope, or by a venue that did not cover addedBy,
// never vouches for a delegation.
const venueProofPurpose = "mcp venue bridge delegation"

// proofData is what a bridge's proof covers: what a call trusts the record
// for (where the caller's secret may go and, for scope venue, whose secret
// that is).
func (r *record) proofData(scope string) []byte {
	if scope == ScopeVenue {
		return []byte(r.Name + "\n" + r.URL + "\n" + r.Auth + "\n" + r.AddedBy)
	}
	return []byte(r.Name + "\n" + r.URL + "\n" + r.Auth)
}

func purposeOf(scope string) string {
	if scope == ScopeVenue {
		return venueProofPurpose
	}
	return proofPurpose
}

// proven reports whether the venue wrote r (through server/add or refresh)
// for owner in scope, rather than a module or an admin writing the
// owner's lattice by hand.
func proven(e *runtime.Engine, owner, scope string, r *record) bool {
	return e.Attested(owner, purposeOf(scope), r.proofData(scope), r.Proof)
}

// recorded reports whether the venue recorded bridge in p as want says:
// to the same server with the same secret (for scope venue, added by the
// same user), with the venue's proof. A bridge missing, or a record that
// does not decode, is not recorded; a store that failed is an error.
func (p *place) recorded(bridge string, want record) (bool, error) {
	if bridge == "" {
		return false, nil
	}
	r, err := p.load(bridge)
	switch c := venue.ErrorCode(err); {
	case err == nil:
		return r.URL == want.URL && r.Auth == want.Auth && (p.scope != ScopeVenue || r.AddedBy == want.AddedBy) &&
			proven(p.e, p.owner, p.scope, r), nil
	case c == venue.ENOTFOUND || c == venue.EINVALID:
		return false, nil
	}
	return false, err
}

// place is where a scope's bridges live and who acts there.
type place struct {
	scope string
	ctx   context.Context // carries the identity that owns the bridges
	owner string          // its DID
	e     *runtime.Engine
	mask  func(json.RawMessage) json.RawMessage // hides the job's secrets in what is saved
}

// placeOf returns scope's place for the job's caller. Scope "venue" needs
// mcp/manage on the venue. Returns EINVALID for an unknown scope.
func placeOf(ctx context.Context, env *runtime.Env, scope string) (*place, error) {
	e := env.Engine()
	switch scope {
	case "", ScopeUser:
		return &place{scope: ScopeUser, ctx: env.Context(ctx), owner: env.Caller().DID, e: e, mask: env.MaskJSON}, nil
	case ScopeVenue:
		if err := e.Authorize(env.Context(ctx), e.Identity().DID, AbilityManage); err != nil {
			return nil, err
		}
		return &place{scope: ScopeVenue, ctx: env.AsVenue(ctx), owner: e.Identity().DID, e: e, mask: env.MaskJSON}, nil
	}
	return nil, venue.Errorf(venue.EINVALID, "'scope' must be \"user\" or \"venue\", got %q", clip(scope))
}

func recordPath(name string) string { return "w/mcp/" + name }
func toolsPath(name string) string  { return "o/mcp/" + name }

// ref is how callers invoke a bridged tool of this place.
func (p *place) ref(name, seg string) string {
	if p.scope == ScopeVenue {
		return "v/ops/mcp/" + name + "/" + seg
	}
	return "o/mcp/" + name + "/" + seg
}

// load returns the bridge called name. Returns ENOTFOUND if there is none.
func (p *place) load(name string) (*record, error) {
	res, err := p.e.Read(p.ctx, recordPath(name), readLimit)
	if err != nil {
		return nil, err
	}
	var r record
	if !res.Exists || json.Unmarshal(res.Value, &r) != nil || r.URL == "" {
		return nil, venue.Errorf(venue.ENOTFOUND, "No MCP bridge named %q in scope %s: add it with v/ops/mcp/server/add", name, p.scope)
	}
	return &r, nil
}

// save writes the bridge's tools, then its record: a record exists only
// for a bridge whose tools are in place.
func (p *place) save(r *record, tools map[string]json.RawMessage) error {
	v, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	if err := p.e.Write(p.ctx, toolsPath(r.Name), v); err != nil {
		return err
	}
	r.Proof = p.e.Attest(p.owner, purposeOf(p.scope), r.proofData(p.scope))
	if v, err = json.Marshal(r); err != nil {
		return err
	}
	return p.e.Write(p.ctx, recordPath(r.Name), v)
}

// drop removes the bridge's record and tools; it reports whether there was
// a record.
func (p *place) drop(name string) (bool, error) {
	had, err := p.e.Delete(p.ctx, recordPath(name))
	if err != nil {
		return false, err
	}
	if _, err := p.e.Delete(p.ctx, toolsPath(name)); err != nil {
		return had, err
	}
	return had, nil
}

// records lists the place's bridges by name.
func (p *place) records() (map[string]record, error) {
	res, err := p.e.Read(p.ctx, "w/mcp", readLimit)
	if err != nil || !res.Exists {
		return nil, err
	}
	var all map[string]record
	if err := json.Unmarshal(res.Value, &all); err != nil {
		return nil, nil // not ours: w/mcp holds something the caller wrote by hand
	}
	return all, nil
}

// segment turns a remote tool name into a lattice path segment: letters,
// digits, '_', '-' and '.', at most 128 bytes, never "." or "..".
func segment(tool string) string {
	var b strings.Builder
	for _, r := range tool {
		if r < 128 && (r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 128 {
			break
		}
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		s = "_" + s
	}
	return s
}

// toolName is a bridged tool's MCP name on the venue's own /mcp:
// <bridge>_<tool> in snake_case, as the catalog's tools are named.
func toolName(bridge, seg string) string {
	return venue.SnakeCase(bridge + "_" + seg)
}

// readLimit is the largest bridge record or tool map read back: a bridge of
// many tools with large schemas is bigger than a default lattice read.
const readLimit = 16 << 20
