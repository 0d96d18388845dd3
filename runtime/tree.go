package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
)

// UpdateTree atomically rewrites the caller's values at and below path (in
// w, o or g), for records kept as several rows, such as an agent's. fn gets
// the value now at path (assembled from its rows) and returns the rows that
// should be there afterwards, keyed by their path relative to path ("" for
// path itself); every other row at or below path is deleted. A nil map
// leaves everything as it is; an empty one deletes it all. Only rows whose
// value changed are written.
// Returns what fn returns, EINVALID if a value is stored whole at an
// ancestor of path, and the errors of Write.
func (e *Engine) UpdateTree(ctx context.Context, path string, fn func(cur json.RawMessage, exists bool) (map[string]json.RawMessage, error)) error {
	c, p, err := e.writable(ctx, path)
	if err != nil {
		return err
	}
	base := p.String()
	return e.store.UpdateValues(ctx, c.DID, base, func(rows []ValueRow) ([]ValueRow, []string, error) {
		old := make(map[string][]byte, len(rows))
		for _, r := range rows {
			if strings.HasPrefix(base, r.Path+"/") {
				return nil, nil, venue.Errorf(venue.EINVALID, "Cannot update %s: a value is stored whole at %s", base, r.Path)
			}
			old[r.Path] = r.Value
		}
		cur, ok := assemble(rows, base)
		next, err := fn(cur, ok)
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
		del := make([]string, 0, len(old))
		for p := range old {
			del = append(del, p)
		}
		return put, del, nil
	})
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
