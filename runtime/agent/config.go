package agent

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"path"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

//go:embed templates/*.json
var templateFS embed.FS

// Templates returns the names of the agent templates the venue ships.
func Templates() []string {
	ents, _ := templateFS.ReadDir("templates")
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}

// TemplateEntries returns the shipped templates as values of the v
// namespace, at v/agents/templates/<name>, so the lattice reads serve them.
func TemplateEntries() []runtime.CatalogEntry {
	var out []runtime.CatalogEntry
	for _, name := range Templates() {
		t, _ := template(name)
		var b bytes.Buffer
		json.Compact(&b, t)
		out = append(out, runtime.CatalogEntry{Path: "v/agents/templates/" + name, Meta: b.Bytes(), Value: true})
	}
	return out
}

// template returns a shipped template's config.
func template(name string) (json.RawMessage, bool) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, false
	}
	b, err := templateFS.ReadFile(path.Join("templates", name+".json"))
	return b, err == nil
}

// resolveConfig reads an agent config given inline (an object) or by
// reference: template:<name>, a workspace path, an asset a/<hash>, a DID
// URL, or an operation (which becomes the transition). An absent config
// is an empty one. Returns EINVALID with the reference's message when a
// reference leads nowhere.
func resolveConfig(ctx context.Context, eng *runtime.Engine, raw json.RawMessage) (map[string]any, error) {
	cfg, err := readConfig(ctx, eng, raw)
	if err != nil {
		return nil, err
	}
	return withDefaults(cfg)
}

// readConfig reads a config as resolveConfig does, without the defaults:
// what it gives is laid over another config.
func readConfig(ctx context.Context, eng *runtime.Engine, raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if raw[0] == '{' {
		var cfg map[string]any
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return nil, venue.Errorf(venue.EINVALID, "config is not a JSON object: %v", err)
		}
		return cfg, nil
	}
	var ref string
	if json.Unmarshal(raw, &ref) != nil {
		return nil, venue.Errorf(venue.EINVALID, "config must be an object or a reference string (template:<name>, w/<path>, a/<hash>, a DID URL or an operation)")
	}
	v, err := dereference(ctx, eng, ref)
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if json.Unmarshal(v, &cfg) != nil || cfg == nil {
		return nil, venue.Errorf(venue.EINVALID, "Could not resolve config reference: %s (it holds no JSON object)", clip(ref))
	}
	if inner, ok := cfg["config"].(map[string]any); ok {
		cfg = inner // asset metadata carrying the config as a facet
	}
	return cfg, nil
}

// withDefaults completes a config, after checking it, with what the
// specification's agent record always holds: the transition (the default
// one where the config names none), the model (DefaultModel, for the
// default transition where neither a model nor an llmOperation is named;
// with none, it asked the provider for model "" and failed every turn)
// and the system prompt ("" for none, as before).
func withDefaults(cfg map[string]any) (map[string]any, error) {
	if err := checkConfig(cfg); err != nil {
		return nil, err
	}
	if op, _ := cfg["operation"].(string); op == "" {
		cfg["operation"] = DefaultTransition
	}
	if _, named := cfg["model"]; !named && cfg["operation"] == DefaultTransition && cfg["llmOperation"] == nil {
		cfg["model"] = DefaultModel
	}
	if _, named := cfg["systemPrompt"]; !named {
		cfg["systemPrompt"] = ""
	}
	return cfg, nil
}

// DefaultModel is the model of an agent on the default transition whose
// config names none: the minimal template's.
const DefaultModel = "gpt-4o-mini"

// checkConfig refuses an operation that is not a reference: the loop would
// run the default transition in its place without a word, and on the
// caller's provider key.
func checkConfig(cfg map[string]any) error {
	switch cfg["operation"].(type) {
	case nil, string:
		return nil
	}
	return venue.Errorf(venue.EINVALID, "config.operation must be the transition's operation reference, a string such as %s", DefaultTransition)
}

// dereference reads what a config reference points at.
func dereference(ctx context.Context, eng *runtime.Engine, ref string) (json.RawMessage, error) {
	unresolved := venue.Errorf(venue.EINVALID, "Could not resolve config reference: %s", clip(ref))
	if name, ok := strings.CutPrefix(ref, "template:"); ok {
		if t, ok := template(name); ok {
			return t, nil
		}
		return nil, venue.Errorf(venue.EINVALID, "Could not resolve config reference: %s (templates: %s)", clip(ref), strings.Join(Templates(), ", "))
	}
	if id, ok := assetRef(ref); ok {
		meta, err := eng.Asset(ctx, id)
		if err != nil {
			return nil, unresolved
		}
		return meta, nil
	}
	if strings.HasPrefix(ref, "w/") || strings.HasPrefix(ref, "o/") || strings.HasPrefix(ref, "v/") || strings.HasPrefix(ref, "did:") {
		res, err := eng.Read(ctx, ref, 0)
		if err != nil || !res.Exists {
			return nil, unresolved
		}
		if op, err := venue.ParseOperation(ref, res.Value); err == nil && op != nil {
			return json.Marshal(map[string]any{"operation": ref})
		}
		return res.Value, nil
	}
	if _, err := eng.Operation(ctx, ref); err == nil {
		return json.Marshal(map[string]any{"operation": ref})
	}
	return nil, unresolved
}

// assetRef reads a/<hash>, /a/<hash>, a bare hex asset id or a DID URL
// <did>/a/<hash>.
func assetRef(ref string) (venue.AssetID, bool) {
	s := ref
	if strings.HasPrefix(s, "did:") {
		_, rest, ok := strings.Cut(s, "/a/")
		if !ok {
			return venue.AssetID{}, false
		}
		s = rest
	} else if rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "/"), "a/"); ok {
		s = rest
	}
	id, err := venue.ParseAssetID(s)
	return id, err == nil
}
