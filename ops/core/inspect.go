package core

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

// Inspect budgets, in bytes of preview text.
const (
	defaultBudget = 500
	minBudget     = 10
)

// inspectReadMax is the largest value inspect reads whole; a larger one is
// described from its listing instead of loaded into the guest.
const inspectReadMax = 1_000_000

// errPaths is the reference venue's exact message for a missing or
// malformed 'paths' (most often 'path' sent instead).
const errPaths = "'paths' must be a string or array of strings"

// summaryKeys is how many keys of a too-large map inspect asks the host for.
const summaryKeys = 20

// maxPaths bounds the paths of one inspect: each is a host call and up to
// inspectReadMax bytes parsed, and at the smallest budget a thousand
// previews are already more than anyone reads.
const maxPaths = 1000

func inspect(in json.RawMessage) (any, error) {
	var p struct {
		Paths   json.RawMessage `json:"paths"`
		Budget  *json.Number    `json:"budget"`
		Compact bool            `json:"compact"`
	}
	if err := input.Decode("core:inspect", in, &p); err != nil {
		return nil, err
	}
	paths, single := parsePaths(p.Paths)
	if paths == nil {
		return nil, guest.Errorf(errPaths)
	}
	if len(paths) > maxPaths {
		return nil, guest.Errorf("'paths' lists %d paths; inspect takes at most %d paths at a time", len(paths), maxPaths)
	}
	budget, err := budgetOf(p.Budget)
	if err != nil {
		return nil, err
	}
	share := max(budget/len(paths), minBudget)
	r := newRenderer(p.Compact)
	lines := make([]string, len(paths))
	for i, path := range paths {
		text, err := r.path(path, share)
		if err != nil {
			return nil, err
		}
		lines[i] = text
		if !single {
			lines[i] = path + r.colon() + text
		}
	}
	return map[string]string{"result": strings.Join(lines, "\n")}, nil
}

// parsePaths accepts a non-empty string or a non-empty array of non-empty
// strings; single reports the string form, whose result is the bare
// preview. Anything else returns nil.
func parsePaths(raw json.RawMessage) (paths []string, single bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, false
		}
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) != nil || len(many) == 0 {
		return nil, false
	}
	for _, s := range many {
		if s == "" {
			return nil, false
		}
	}
	return many, false
}

// budgetOf reads budget: default 500, at least 10.
func budgetOf(n *json.Number) (int, error) {
	if n == nil {
		return defaultBudget, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, fmt.Errorf("'budget' must be a number of bytes, got %s", *n)
	}
	return max(int(f), minBudget), nil
}

// readResult is the part of the host's lattice.read result inspect uses.
type readResult struct {
	Exists     bool            `json:"exists"`
	Value      json.RawMessage `json:"value"`
	ValueBytes int             `json:"valueBytes"`
	Size       int             `json:"size"`
	Type       string          `json:"type"`
	Truncated  bool            `json:"truncated"`
}

// path previews the value at path in about budget bytes.
func (r renderer) path(path string, budget int) (string, error) {
	var res readResult
	err := guest.Call("lattice.read", map[string]any{"path": path, "maxSize": inspectReadMax}, &res)
	switch {
	case err != nil:
		return "", err
	case !res.Exists:
		return strings.TrimSpace(r.note("absent")), nil
	case res.Truncated:
		return r.large(path, res, budget)
	}
	v, err := jsonv.Parse(res.Value)
	if err != nil {
		return "", fmt.Errorf("value at %s: %v", path, err)
	}
	return r.value(v, budget), nil
}

// large describes a value too big to read whole, from its listing.
func (r renderer) large(path string, res readResult, budget int) (string, error) {
	size := max(res.Size, res.ValueBytes)
	var l struct {
		Count int      `json:"count"`
		Keys  []string `json:"keys"`
	}
	if res.Type == "Map" || res.Type == "Vector" {
		if err := guest.Call("lattice.list", map[string]any{"path": path, "limit": summaryKeys}, &l); err != nil {
			return "", err
		}
	}
	switch res.Type {
	case "Map":
		return r.largeMap(l.Count, l.Keys, size, budget), nil
	case "Vector":
		return "[…" + r.note(fmt.Sprintf("%d items, %d bytes", l.Count, size)) + "]", nil
	case "String":
		return `"…"` + r.note(fmt.Sprintf("%d bytes", size)), nil
	}
	return "…" + r.note(fmt.Sprintf("%s, %d bytes", strings.ToLower(res.Type), size)), nil
}

// largeMap names as many of the map's first keys as fit the budget.
func (r renderer) largeMap(count int, keys []string, size, budget int) string {
	head := fmt.Sprintf("%d keys, %d bytes", count, size)
	text := "{…" + r.note(head) + "}"
	for i := range keys {
		names := strings.Join(keys[:i+1], r.comma())
		if i+1 < count {
			names += r.comma() + "…"
		}
		next := "{…" + r.note(head+": "+names) + "}"
		if len(next) > budget {
			break
		}
		text = next
	}
	return text
}
