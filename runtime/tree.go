package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
)

// Tree is the value at a path as ReadTree and UpdateTree see it.
type Tree struct {
	Value  json.RawMessage // assembled from the rows read
	Exists bool
	// Folded says that rows below the fold were left out of Value.
	Folded bool
}

// UpdateTree atomically rewrites the caller's values at and below path (in
// w, o or g), for records kept as several rows, such as an agent's. fn gets
// the value now at path (assembled from its rows) and returns the rows that
// should be there afterwards, keyed by their path relative to path ("" for
// path itself); every other row at or below path is deleted. A nil map
// leaves everything as it is; an empty one deletes it all. Only rows whose
// value changed are written.
//
// With a fold (fold.Path not empty, a path below path; without one Keep
// and Skip mean nothing) the rows below
// fold.Path but for those at or below fold.Keep are neither read nor
// changed: fn sees the value without them (Tree.Folded says whether there
// were any), and they are deleted only by an empty map or by a row stored
// at or above fold.Path. The rows at fold.Skip likewise, but that a row
// fn returns at such a path replaces it.
// Returns what fn returns, EINVALID if a value is stored whole at an
// ancestor of path, and the errors of Write.
func (e *Engine) UpdateTree(ctx context.Context, path string, fold Fold, fn func(Tree) (map[string]json.RawMessage, error)) error {
	c, p, err := e.writable(ctx, path)
	if err != nil {
		return err
	}
	base := p.String()
	change := func(rows []ValueRow) ([]ValueRow, []string, error) {
		return e.treeChange(rows, base, fold, fn)
	}
	if fold.Path == "" {
		return e.store.UpdateValues(ctx, c.DID, base, change)
	}
	return e.store.UpdateFolded(ctx, c.DID, base, fold, change)
}

// treeChange is what UpdateTree stores: the rows fn asks for that differ
// from rows, and the deletion of the rest.
func (e *Engine) treeChange(rows []ValueRow, base string, fold Fold, fn func(Tree) (map[string]json.RawMessage, error)) ([]ValueRow, []string, error) {
	below := ""
	if fold.Path == "" {
		fold = Fold{} // no fold: nothing kept or skipped either
	} else {
		below = BelowRow(fold.Path).Path
	}
	old := make(map[string][]byte, len(rows))
	t := Tree{}
	for _, r := range rows {
		if strings.HasPrefix(base, r.Path+"/") {
			return nil, nil, venue.Errorf(venue.EINVALID, "Cannot update %s: a value is stored whole at %s", base, r.Path)
		}
		if r.Path == below {
			t.Folded = true
			continue
		}
		old[r.Path] = r.Value
	}
	rows = slices.DeleteFunc(rows, func(r ValueRow) bool { return r.Path == below })
	t.Value, t.Exists = assemble(rows, base)
	next, err := fn(t)
	if err != nil || next == nil {
		return nil, nil, err
	}
	var put []ValueRow
	for rel, v := range next {
		full := base
		if rel != "" {
			full = base + "/" + rel
		}
		if len(v) > e.maxValueSize() {
			return nil, nil, venue.Errorf(venue.ETOOLARGE, "Value at %s of %d bytes exceeds the limit of %d", full, len(v), e.maxValueSize())
		}
		if prev, had := old[full]; !had || !bytes.Equal(prev, v) {
			put = append(put, ValueRow{Path: full, Value: v})
		}
		delete(old, full)
	}
	del := make([]string, 0, len(old)+1)
	for p := range old {
		del = append(del, p)
	}
	if t.Folded && (len(next) == 0 || shadows(next, base, fold.Path)) {
		del = append(del, below)
	}
	for _, p := range fold.Skip {
		if _, kept := next[strings.TrimPrefix(p, base+"/")]; !kept && (len(next) == 0 || shadows(next, base, p)) {
			del = append(del, p)
		}
	}
	return put, del, nil
}

// shadows reports whether a row of next (keyed below base) is stored
// whole at path or an ancestor of it: the rows below path, folded or not,
// are then replaced.
func shadows(next map[string]json.RawMessage, base, path string) bool {
	for rel := range next {
		full := base
		if rel != "" {
			full = base + "/" + rel
		}
		if full == path || strings.HasPrefix(path, full+"/") {
			return true
		}
	}
	return false
}

// ReadTree reads the caller's value at path (in w, o or g) as UpdateTree
// would give it to fn, fold and all.
// Returns ETOOLARGE if it assembles to more than a read may.
func (e *Engine) ReadTree(ctx context.Context, path string, fold Fold) (Tree, error) {
	c, p, err := e.callerAt(ctx, path)
	if err != nil {
		return Tree{}, err
	}
	if !storedNamespace(p) {
		return Tree{}, venue.Errorf(venue.EINVALID, "%s is not a stored value: read it with Read", path)
	}
	base, budget := p.String(), e.readCap()
	below, t := BelowRow(fold.Path).Path, Tree{}
	v := newValueFrom(base)
	add := func(r ValueRow) error {
		if r.Path == below {
			t.Folded = true
			return nil
		}
		if err := v.add(r); err != nil || v.a.size() <= budget {
			return err
		}
		return venue.Errorf(venue.ETOOLARGE, "The value at %s is more than the %d bytes one read assembles", base, budget)
	}
	if fold.Path == "" {
		err = e.store.ValueRows(ctx, c.DID, base, false, add)
	} else {
		err = e.store.FoldedRows(ctx, c.DID, base, fold, add)
	}
	if err != nil && !errors.Is(err, errWhole) {
		return Tree{}, err
	}
	t.Value, t.Exists = v.value()
	return t, nil
}

// Parent returns the job that spawned this one, if any: framework tools
// (agent:complete-task) find the run they act for through it.
func (env *Env) Parent() (venue.JobID, bool) {
	env.j.mu.Lock()
	defer env.j.mu.Unlock()
	if env.j.rec.Parent == nil {
		return venue.JobID{}, false
	}
	return *env.j.rec.Parent, true
}

// Detach gives the job's worker slot back while it waits on something
// outside the pool (an agent finishing a task), so that many waiting jobs
// cannot starve it.
func (env *Env) Detach() { env.releaseSlot() }
