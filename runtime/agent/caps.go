package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// maxCaps bounds how many capabilities one agent holds.
const maxCaps = 64

var didPattern = regexp.MustCompile(`^did:[a-z0-9]+:[A-Za-z0-9._:%-]{1,240}$`)

var abilityPattern = regexp.MustCompile(`^(\*|[a-z][a-z0-9_-]{0,31}(/[a-z][a-z0-9_-]{0,31}){0,3})$`)

// parseCaps reads the caps of create or update: a list of {with, can}, a
// relative with ("w/notes") meaning a path of the owner's. nil means none
// were given.
// Returns EINVALID naming the entry that is malformed.
func parseCaps(owner string, raw json.RawMessage) ([]venue.Capability, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var caps []venue.Capability
	if err := json.Unmarshal(raw, &caps); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "caps must be a list of {\"with\": path, \"can\": ability}, e.g. [{\"with\": \"w/notes\", \"can\": \"crud/read\"}]")
	}
	if len(caps) > maxCaps {
		return nil, venue.Errorf(venue.EINVALID, "caps lists %d capabilities; the limit is %d", len(caps), maxCaps)
	}
	out := make([]venue.Capability, len(caps))
	for i, c := range caps {
		with, err := resolveWith(owner, c.With)
		if err != nil {
			return nil, venue.Errorf(venue.EINVALID, "caps[%d].with: %s", i, venue.ErrorMessage(err))
		}
		if !abilityPattern.MatchString(c.Can) {
			return nil, venue.Errorf(venue.EINVALID, "caps[%d].can %q is not an ability: use one such as crud/read, crud/write, invoke, agent/create, or * for all", i, clip(c.Can))
		}
		out[i] = venue.Capability{With: with, Can: c.Can}
	}
	return out, nil
}

// resolveWith qualifies a capability's resource with the owner's DID
// unless it names a DID already, and checks its path.
func resolveWith(owner, with string) (string, error) {
	if with == "" {
		return "", venue.Errorf(venue.EINVALID, "required: a path such as w/notes, or a DID-qualified one")
	}
	did, rel := owner, strings.TrimPrefix(with, "/")
	if strings.HasPrefix(with, "did:") {
		did, rel, _ = strings.Cut(with, "/")
		if !didPattern.MatchString(did) {
			return "", venue.Errorf(venue.EINVALID, "%q is not a DID", clip(did))
		}
	}
	if rel == "" {
		return did, nil
	}
	p, err := venue.ParsePath(rel)
	if err != nil {
		return "", err
	}
	return did + "/" + p.String(), nil
}

// grant is a capability an agent holds, kept in its record. Expires is
// when the proof of one beyond the owner's namespace expires (ms since the
// epoch: the earliest exp of the UCAN chain its creator presented); zero
// for one in the owner's own namespace, which needs no proof.
type grant struct {
	With    string `json:"with"`
	Can     string `json:"can"`
	Expires int64  `json:"expires,omitempty"`
}

func (g grant) capability() venue.Capability { return venue.Capability{With: g.With, Can: g.Can} }

// lapsed reports whether the grant's proof has expired at now (ms).
func (g grant) lapsed(now int64) bool { return g.Expires > 0 && g.Expires <= now }

func capabilities(gs []grant) []venue.Capability {
	if gs == nil {
		return nil
	}
	out := make([]venue.Capability, len(gs))
	for i, g := range gs {
		out[i] = g.capability()
	}
	return out
}

// defaultCaps is what an agent created without caps holds: everything in
// its owner's namespace, nothing beyond it.
func defaultCaps(owner string) []grant {
	return []grant{{With: owner, Can: "*"}}
}

// capsFor returns the caps an agent will hold, given or by default,
// once the caller in ctx (its creator) proves it holds each of them.
// Returns EINVALID for malformed caps and the capability check's error
// (EFORBIDDEN, or EUNAUTHORIZED for an anonymous creator) naming the cap
// the creator lacks.
func capsFor(ctx context.Context, eng *runtime.Engine, owner string, raw json.RawMessage) ([]grant, error) {
	caps, err := parseCaps(owner, raw)
	if err != nil {
		return nil, err
	}
	return checkHeld(ctx, eng, owner, caps)
}

// checkHeld checks that the caller in ctx holds every one of caps (nil:
// the default), so that nobody gives an agent more than they have: an
// owner holds everything in its own namespace, and beyond it what the
// UCANs of its call prove. A cap beyond the owner's namespace keeps the
// expiry of the proof it rests on.
func checkHeld(ctx context.Context, eng *runtime.Engine, owner string, caps []venue.Capability) ([]grant, error) {
	given := caps != nil
	if !given {
		caps = capabilities(defaultCaps(owner))
	}
	c, _ := venue.CallerFrom(ctx)
	out := make([]grant, len(caps))
	for i, cp := range caps {
		if err := eng.Authorize(ctx, cp.With, cp.Can); err != nil {
			what := "caps[" + strconv.Itoa(i) + "]"
			if !given {
				what = "the default caps (everything in your namespace; give caps to grant less)"
			}
			return nil, venue.Errorf(venue.ErrorCode(err), "An agent cannot be granted more than its creator holds: %s: %s", what, venue.ErrorMessage(err))
		}
		out[i] = grant{With: cp.With, Can: cp.Can}
		if until, ok := c.GrantedUntil(cp.With, cp.Can); ok && venue.Owner(cp.With) != owner && !until.IsZero() {
			out[i].Expires = until.UnixMilli()
		}
	}
	return out, nil
}

// agentCaller is who an agent's transition and tool calls act as at now
// (ms): its owner, holding the agent's caps beyond the owner's namespace
// (the creator proved them at create) until their proof expires, and
// confined to the caps, plus the one the machinery needs to run the
// transition and its tools: invoke on the owner's jobs, and use of the
// provider key its config names. A record without caps (made before caps
// existed) holds the default. A cap beyond the owner's namespace with no
// expiry proves nothing by itself: it only bounds (the venue's admins hold
// venue-wide abilities as themselves, not by a grant).
func agentCaller(owner venue.Caller, caps []grant, cfg map[string]any, now int64) venue.Caller {
	if caps == nil {
		caps = defaultCaps(owner.DID)
	}
	c := venue.Caller{DID: owner.DID, Anonymous: owner.Anonymous}
	bound := []venue.Capability{{With: owner.DID + "/" + venue.NSJobs, Can: venue.AbilityInvoke}}
	for _, g := range caps {
		if g.lapsed(now) {
			continue
		}
		if venue.Owner(g.With) != owner.DID && g.Expires > 0 {
			c = c.WithGrantsUntil(time.UnixMilli(g.Expires), g.capability())
		}
		bound = append(bound, g.capability())
	}
	for _, k := range keySecrets(cfg) {
		bound = append(bound, venue.Capability{With: owner.DID + "/" + venue.NSSecrets + "/" + k, Can: venue.AbilityRead})
	}
	return c.Bounded(bound)
}

// capsView is how info shows an agent's caps: each with its expiry, if
// any, and "expired": true once that has passed.
func capsView(caps []grant, now int64) []map[string]any {
	out := make([]map[string]any, len(caps))
	for i, g := range caps {
		out[i] = map[string]any{"with": g.With, "can": g.Can}
		if g.Expires > 0 {
			out[i]["expires"] = g.Expires
		}
		if g.lapsed(now) {
			out[i]["expired"] = true
		}
	}
	return out
}

// checkKeyHeld refuses a config whose model call would use a provider key
// its creator may not read: an agent's bound grants use of that key
// whatever its caps say, so a creator confined away from a secret (an
// agent making agents, a UCAN held as the bearer) could otherwise name it
// as apiKeySecret, with a baseUrl of its own, and have the venue send it
// there. An unconfined creator holds its own secrets; a transition that
// calls no model (one naming an operation, no provider or key) is left be.
func checkKeyHeld(ctx context.Context, eng *runtime.Engine, owner string, cfg map[string]any) error {
	c, _ := venue.CallerFrom(ctx)
	if c.Bound() == nil {
		return nil
	}
	_, names := cfg["apiKeySecret"].(string)
	_, picks := cfg["provider"].(string)
	if opOf(cfg) != DefaultTransition && !names && !picks {
		return nil
	}
	for _, k := range keySecrets(cfg) {
		if err := eng.Authorize(ctx, owner+"/"+venue.NSSecrets+"/"+k, venue.AbilityRead); err != nil {
			return venue.Errorf(venue.ErrorCode(err), "An agent cannot be given a provider key its creator may not use: s/%s: %s", k, venue.ErrorMessage(err))
		}
	}
	return nil
}

// keySecrets are the secrets an LLM transition uses for its provider key:
// apiKeySecret, else the provider's default name. The agent may use them
// whatever its caps say, as its config chose them.
func keySecrets(cfg map[string]any) []string {
	if k, _ := cfg["apiKeySecret"].(string); k != "" {
		return []string{strings.TrimPrefix(k, "s/")}
	}
	switch p, _ := cfg["provider"].(string); strings.ToLower(p) {
	case "anthropic":
		return []string{"ANTHROPIC_API_KEY"}
	case "", "openai":
		return []string{"OPENAI_API_KEY"}
	}
	return nil
}

// plainOwner is the owner of a caller, with no grants or bound: the agent
// framework's own work (its record, the jobs it awaits) is done as this.
func plainOwner(c venue.Caller) venue.Caller {
	return venue.Caller{DID: c.DID, Anonymous: c.Anonymous}
}
