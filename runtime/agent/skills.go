package agent

import (
	"context"
	"encoding/json"
	"io"
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
	im, err := importOne(ctx, env, set, p)
	if err != nil {
		return nil, err
	}
	return output(im)
}

// importOne reads one SKILL.md (inline text or a source) into the skillset.
func importOne(ctx context.Context, env *runtime.Env, set string, p importParams) (*imported, error) {
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
	path := set + "/" + sk.Name
	octx := env.Context(ctx)
	prev, err := env.Engine().Read(octx, path, 0)
	if err != nil {
		return nil, err
	}
	v, _ := json.Marshal(map[string]any{"name": sk.Name, "description": sk.Description, "content": sk.Text, "source": p.Source})
	if err := env.Engine().Write(octx, path, v); err != nil {
		return nil, err
	}
	return &imported{Path: path, Name: sk.Name, Description: sk.Description, Source: p.Source, Content: "inline", Existed: prev.Exists}, nil
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
	return "", venue.Errorf(venue.EINVALID, "Skill source %q cannot be read on this venue: give the SKILL.md as {\"text\": ...}, an asset a/<hash> or a workspace path w/...", clip(src))
}

// fromSkills imports skills and creates an agent that uses them.
func (a *Agents) fromSkills(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		AgentID   string            `json:"agentId"`
		Skills    []json.RawMessage `json:"skills"`
		Skillset  string            `json:"skillset"`
		Overwrite bool              `json:"overwrite"`
		State     json.RawMessage   `json:"state"`
		Caps      json.RawMessage   `json:"caps"`
	}
	var extra map[string]any
	if err := parse(in, &p); err != nil {
		return nil, err
	}
	json.Unmarshal(in, &extra)
	if err := checkAgentID("agentId", p.AgentID); err != nil {
		return nil, err
	}
	// Both checks come first, so a refused caller changes nothing.
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
	var done []*imported
	var paths []string
	for i, s := range p.Skills {
		ip, err := skillItem(s)
		if err != nil {
			return nil, venue.Errorf(venue.EINVALID, "skills[%d]: %s", i, venue.ErrorMessage(err))
		}
		im, err := importOne(ctx, env, set, ip)
		if err != nil {
			return nil, venue.Errorf(venue.ErrorCode(err), "skills[%d]: %s", i, venue.ErrorMessage(err))
		}
		done, paths = append(done, im), append(paths, im.Path)
	}
	for _, k := range []string{"agentId", "skills", "skillset", "overwrite", "state", "caps"} {
		delete(extra, k)
	}
	extra["skills"] = paths
	cfg, _ := json.Marshal(extra)
	out, err := a.createAgent(ctx, env, createParams{AgentID: p.AgentID, Config: cfg, State: p.State, Caps: caps, Overwrite: p.Overwrite})
	if err != nil {
		return nil, err
	}
	var res map[string]any
	json.Unmarshal(out, &res)
	res["address"] = env.Caller().DID + "/g/" + p.AgentID
	res["importedSkills"], res["skillset"] = done, set
	return output(res)
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
