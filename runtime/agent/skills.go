package agent

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// DefaultSkillset is where imported skills go unless told otherwise.
const DefaultSkillset = "w/skills"

type importParams struct {
	Source   string `json:"source"`
	Text     string `json:"text"`
	Skillset string `json:"skillset"`
	Content  string `json:"content"`
}

// imported is where a skill now lives.
type imported struct {
	Path        string `json:"path"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source,omitempty"`
	Content     string `json:"content"`
	Existed     bool   `json:"existed"`
}

// checkSkillset validates a skillset path (in the caller's workspace) and
// the caller's write access to it.
func checkSkillset(ctx context.Context, env *runtime.Env, set string) (string, error) {
	if set == "" {
		set = DefaultSkillset
	}
	p, err := venue.ParsePath(set)
	if err != nil {
		return "", err
	}
	if p.Namespace() != venue.NSWorkspace || len(p.Segments) < 2 {
		return "", venue.Errorf(venue.EINVALID, "skillset must be a path in your workspace, such as w/skills, got %q", clip(set))
	}
	set = p.String()
	return set, env.Engine().Authorize(env.Context(ctx), env.Caller().DID+"/"+set, venue.AbilityWrite)
}

func (a *Agents) importSkill(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p importParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	set, err := checkSkillset(ctx, env, p.Skillset)
	if err != nil {
		return nil, err
	}
	sk, err := readSkill(ctx, env, set, p)
	if err != nil {
		return nil, err
	}
	im, err := sk.write(ctx, env)
	if err != nil {
		return nil, err
	}
	return output(im)
}

// pendingSkill is a SKILL.md read and parsed, not yet written.
type pendingSkill struct {
	*Skill
	path, source string
}

// readSkill reads one SKILL.md (inline text or a source) for the skillset
// and checks it, writing nothing.
func readSkill(ctx context.Context, env *runtime.Env, set string, p importParams) (*pendingSkill, error) {
	if (p.Source == "") == (p.Text == "") {
		return nil, venue.Errorf(venue.EINVALID, "Give exactly one of 'source' (a/<hash> or a workspace path) and 'text' (the SKILL.md content)")
	}
	if p.Content != "" && p.Content != "inline" {
		return nil, venue.Errorf(venue.EINVALID, "content %q is not supported here: use \"inline\" (the skill's text is copied into the skillset)", clip(p.Content))
	}
	text := p.Text
	if p.Source != "" {
		var err error
		if text, err = readSource(ctx, env, p.Source); err != nil {
			return nil, err
		}
	}
	sk, err := ParseSkill(text)
	if err != nil {
		return nil, err
	}
	return &pendingSkill{Skill: sk, path: set + "/" + sk.Name, source: p.Source}, nil
}

// write stores the skill in its skillset.
func (sk *pendingSkill) write(ctx context.Context, env *runtime.Env) (*imported, error) {
	octx := env.Context(ctx)
	prev, err := env.Engine().Read(octx, sk.path, 0)
	if err != nil {
		return nil, err
	}
	v, _ := json.Marshal(map[string]any{"name": sk.Name, "description": sk.Description, "content": sk.Text, "source": sk.source})
	if err := env.Engine().Write(octx, sk.path, v); err != nil {
		return nil, err
	}
	return &imported{Path: sk.path, Name: sk.Name, Description: sk.Description, Source: sk.source, Content: "inline", Existed: prev.Exists}, nil
}

// readSource reads a SKILL.md from an asset's content or a workspace value
// (a string, or an object with "content").
func readSource(ctx context.Context, env *runtime.Env, src string) (string, error) {
	eng, octx := env.Engine(), env.Context(ctx)
	if id, ok := assetRef(src); ok {
		ac, err := eng.Content(octx, id)
		if err != nil {
			return "", err
		}
		defer ac.Body.Close()
		b, err := io.ReadAll(io.LimitReader(ac.Body, MaxSkillSize+1))
		return string(b), err
	}
	if strings.HasPrefix(src, "w/") {
		res, err := eng.Read(octx, src, MaxSkillSize+1024)
		if err != nil || !res.Exists {
			return "", venue.Errorf(venue.ENOTFOUND, "No skill at %s", clip(src))
		}
		var s string
		if json.Unmarshal(res.Value, &s) == nil {
			return s, nil
		}
		var m struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(res.Value, &m) == nil && m.Content != "" {
			return m.Content, nil
		}
		return "", venue.Errorf(venue.EINVALID, "%s holds no SKILL.md text (a string, or an object with 'content')", clip(src))
	}
	if strings.HasPrefix(strings.TrimPrefix(src, "/"), "a/") {
		return "", venue.Errorf(venue.EINVALID, "Skill source %q is no asset reference: a/ takes an asset id of 64 hex digits", clip(src))
	}
	// file:// and dlfs/ sources name server files and DLFS drives, which
	// this venue does not serve to operations (see docs/RATIONALE.md).
	return "", venue.Errorf(venue.EINVALID, "Skill source %q cannot be read on this venue: give the SKILL.md as {\"text\": ...}, an asset a/<hash> or a workspace path w/...", clip(src))
}

type fromSkillsParams struct {
	AgentID   string            `json:"agentId"`
	Skills    []json.RawMessage `json:"skills"`
	Skillset  string            `json:"skillset"`
	Overwrite bool              `json:"overwrite"`
	State     json.RawMessage   `json:"state"`
	Caps      json.RawMessage   `json:"caps"`
	Config    json.RawMessage   `json:"config"`
}

// fromSkills imports skills and creates an agent that uses them. Every
// check comes first (both capability checks, the config, each skill, the
// agent's slot), so a refused call writes nothing; the agent is made, then
// its skills written.
func (a *Agents) fromSkills(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p fromSkillsParams
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	if err := authorizeCreate(ctx, env, p.AgentID); err != nil {
		return nil, err
	}
	set, err := checkSkillset(ctx, env, p.Skillset)
	if err != nil {
		return nil, err
	}
	caps, err := skillCaps(ctx, env, p.Caps, set)
	if err != nil {
		return nil, err
	}
	skills, err := readSkills(ctx, env, set, p.Skills)
	if err != nil {
		return nil, err
	}
	cfg, err := skillsConfig(env.Context(ctx), env.Engine(), in, p.Config, skills)
	if err != nil {
		return nil, err
	}
	res := map[string]any{"address": env.Caller().DID + "/g/" + p.AgentID, "skillset": set, "importedSkills": []*imported{}}
	if held, err := a.slotTaken(ctx, env, p.AgentID, p.Overwrite); err != nil || held != nil {
		if err != nil {
			return nil, err
		}
		res["agentId"], res["status"], res["created"], res["updated"] = p.AgentID, held.Status, false, false
		res["warnings"] = []string{"Agent " + p.AgentID + " exists: nothing was imported or changed; pass overwrite true to replace its config"}
		return output(res)
	}
	out, err := a.createAgent(ctx, env, createParams{AgentID: p.AgentID, Config: cfg, State: p.State, Caps: caps, Overwrite: p.Overwrite})
	if err != nil {
		return nil, err
	}
	json.Unmarshal(out, &res)
	if res["importedSkills"], err = writeSkills(ctx, env, skills); err != nil {
		return nil, err
	}
	return output(res)
}

// writeSkills writes skills checked by readSkills.
func writeSkills(ctx context.Context, env *runtime.Env, skills []*pendingSkill) ([]*imported, error) {
	done := []*imported{}
	for i, sk := range skills {
		im, err := sk.write(ctx, env)
		if err != nil {
			return nil, venue.Errorf(venue.ErrorCode(err), "skills[%d]: %s", i, venue.ErrorMessage(err))
		}
		done = append(done, im)
	}
	return done, nil
}

// readSkills reads and checks every entry of from-skills' skills.
func readSkills(ctx context.Context, env *runtime.Env, set string, items []json.RawMessage) ([]*pendingSkill, error) {
	out := make([]*pendingSkill, 0, len(items))
	for i, s := range items {
		ip, err := skillItem(s)
		if err == nil {
			var sk *pendingSkill
			if sk, err = readSkill(ctx, env, set, ip); err == nil {
				out = append(out, sk)
				continue
			}
		}
		return nil, venue.Errorf(venue.ErrorCode(err), "skills[%d]: %s", i, venue.ErrorMessage(err))
	}
	return out, nil
}

// skillsConfig is from-skills' agent config: config read as create reads
// it, the input's other config fields (systemPrompt, operation,
// llmOperation, model, ...) laid over it, and the skills added to its own.
func skillsConfig(ctx context.Context, eng *runtime.Engine, in, base json.RawMessage, skills []*pendingSkill) (json.RawMessage, error) {
	cfg, err := readConfig(ctx, eng, base) // the defaults once the input's fields are in
	if err != nil {
		return nil, err
	}
	var extra map[string]any
	json.Unmarshal(in, &extra)
	for _, k := range []string{"agentId", "skills", "skillset", "overwrite", "state", "caps", "config"} {
		delete(extra, k)
	}
	maps.Copy(cfg, extra)
	if cfg, err = withDefaults(cfg); err != nil {
		return nil, err
	}
	paths := []any{}
	if had, ok := cfg["skills"].([]any); ok {
		paths = append(paths, had...)
	}
	for _, sk := range skills {
		if !slices.Contains(paths, any(sk.path)) {
			paths = append(paths, sk.path)
		}
	}
	cfg["skills"] = paths
	return json.Marshal(cfg)
}

// slotTaken returns the agent at id if from-skills must leave it as it is
// (it exists and overwrite is false), nil if the agent may be made.
// Returns ECONFLICT for an overwrite over a run in flight, as create does.
func (a *Agents) slotTaken(ctx context.Context, env *runtime.Env, id string, overwrite bool) (*record, error) {
	r, err := load(env.Context(ctx), env.Engine(), id, scope{})
	switch {
	case err != nil || r == nil:
		return nil, err
	case !overwrite:
		return r, nil
	case a.busy(env.Caller().DID, id, r):
		return nil, runningRefusal(id, r.Status)
	}
	return nil, nil
}

// skillItem reads one entry of from-skills' skills: {text} or a reference.
func skillItem(raw json.RawMessage) (importParams, error) {
	var ref string
	if json.Unmarshal(raw, &ref) == nil {
		return importParams{Source: ref}, nil
	}
	var p importParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, venue.Errorf(venue.EINVALID, "each skill is {\"text\": SKILL.md} or a reference string")
	}
	return p, nil
}

// skillCaps checks from-skills' caps up front (so that a refused caller
// changes nothing) and, when caps are given, adds reading the skillset:
// an agent made from skills must be able to read them.
func skillCaps(ctx context.Context, env *runtime.Env, raw json.RawMessage, set string) (json.RawMessage, error) {
	owner := env.Caller().DID
	caps, err := parseCaps(owner, raw)
	if err != nil || caps == nil {
		if err == nil {
			_, err = checkHeld(env.Context(ctx), env.Engine(), owner, nil)
		}
		return raw, err
	}
	caps = append(caps, venue.Capability{With: owner + "/" + set, Can: venue.AbilityRead})
	if _, err := checkHeld(env.Context(ctx), env.Engine(), owner, caps); err != nil {
		return nil, err
	}
	return json.Marshal(caps)
}
