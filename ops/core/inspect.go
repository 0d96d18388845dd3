package core

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/ops/preview"
	"github.com/gridvenue/venue/wasm/guest"
)

// errPaths is the reference venue's exact message for a missing or
// malformed 'paths' (most often 'path' sent instead).
const errPaths = "'paths' must be a string or array of strings"

// inspect decodes its input and leaves the rendering to package preview,
// which GET /api/v1/values/inspect shares, so that both show a value
// alike.
func inspect(in json.RawMessage) (any, error) {
	var p struct {
		Paths   json.RawMessage `json:"paths"`
		Budget  *json.Number    `json:"budget"`
		Compact bool            `json:"compact"`
	}
	if err := input.Decode("core:inspect", in, &p); err != nil {
		return nil, err
	}
	paths, single, problem := parsePaths(p.Paths)
	if problem != "" {
		return nil, guest.Errorf("%s", problem)
	}
	if len(paths) > preview.MaxPaths {
		return nil, guest.Errorf("'paths' lists %d paths; inspect takes at most %d paths at a time", len(paths), preview.MaxPaths)
	}
	budget, err := budgetOf(p.Budget)
	if err != nil {
		return nil, err
	}
	text, err := preview.Inspect(context.Background(), hostReader{}, paths,
		preview.Options{Budget: budget, Compact: p.Compact, Label: !single})
	if err != nil {
		return nil, err
	}
	return map[string]string{"result": text}, nil
}

// parsePaths accepts a non-empty string or a non-empty array of non-empty
// strings; single reports the string form, whose result is the bare
// preview. Anything else has a problem: errPaths for the wrong kind (the
// reference's words), or what is empty.
func parsePaths(raw json.RawMessage) (paths []string, single bool, problem string) {
	var one string
	if string(raw) == "null" { // decodes as "" to a string, but was no string
		return nil, false, errPaths
	}
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, false, "'paths' is an empty string: give a lattice path, e.g. \"w/notes\", or a list of them"
		}
		return []string{one}, true, ""
	}
	var many []string
	if json.Unmarshal(raw, &many) != nil {
		return nil, false, errPaths
	}
	if len(many) == 0 {
		return nil, false, "'paths' is an empty list: give at least one lattice path"
	}
	for i, s := range many {
		if s == "" {
			return nil, false, fmt.Sprintf("'paths' has an empty string at index %d: every entry must be a lattice path", i)
		}
	}
	return many, false, ""
}

// budgetOf reads budget: absent or 0 the default 500, else at least 10, as
// /values/inspect reads it.
func budgetOf(n *json.Number) (int, error) {
	if n == nil {
		return preview.DefaultBudget, nil
	}
	f, err := n.Float64()
	if err != nil || f < 0 {
		return 0, fmt.Errorf("'budget' must be a number of bytes, at least 0, got %s", *n)
	}
	if f == 0 {
		return preview.DefaultBudget, nil
	}
	return max(int(f), preview.MinBudget), nil
}

// hostReader reads the lattice through the host's lattice functions, which
// check the job's caller's capabilities.
type hostReader struct{}

// readResult is the part of the host's lattice.read result inspect uses.
type readResult struct {
	Exists     bool            `json:"exists"`
	Value      json.RawMessage `json:"value"`
	ValueBytes int             `json:"valueBytes"`
	Size       int             `json:"size"`
	Type       string          `json:"type"`
	Truncated  bool            `json:"truncated"`
}

func (hostReader) Read(_ context.Context, path string, maxSize int) (preview.ReadResult, error) {
	var res readResult
	if err := guest.Call("lattice.read", map[string]any{"path": path, "maxSize": maxSize}, &res); err != nil {
		return preview.ReadResult{}, err
	}
	return preview.ReadResult{Exists: res.Exists, Value: res.Value, Truncated: res.Truncated,
		Type: res.Type, Size: max(res.Size, res.ValueBytes)}, nil
}

func (hostReader) Keys(_ context.Context, path string, limit int) (int, []string, error) {
	var l struct {
		Count int      `json:"count"`
		Keys  []string `json:"keys"`
	}
	err := guest.Call("lattice.list", map[string]any{"path": path, "limit": limit}, &l)
	return l.Count, l.Keys, err
}
