package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	venue "github.com/gridvenue/venue"
)

// MaxGroups bounds the groups of one Count, so that its answer stays small
// whatever field it groups by.
const MaxGroups = 1000

// CountResult counts the entries of a map (its keys) or a vector (its
// elements). Absent paths and scalars are {"exists": false}.
type CountResult struct {
	Exists bool                  `json:"exists"`
	Count  *int                  `json:"count,omitempty" doc:"Keys of a map or elements of a vector; absent when exists is false"`
	Groups map[string]CountGroup `json:"groups,omitzero" doc:"With groupBy: the entries by the value of that field, \"null\" for entries without it"`
}

// CountGroup is one group of a grouped count.
type CountGroup struct {
	Count int `json:"count"`
}

// Count counts the entries of the map or vector at path. With groupBy, a
// field name or a slash path of field names, it also counts them by that
// field's value (see groupKey).
// Returns EINVALID for a malformed path or groupBy, for grouping j (but by
// status) or a when they hold more than maxMaterialized entries, and for
// more than MaxGroups groups; ETOOLARGE for a grouped value too large to
// assemble.
func (e *Engine) Count(ctx context.Context, path, groupBy string) (*CountResult, error) {
	field, err := groupField(groupBy)
	switch {
	case err != nil:
		return nil, err
	case field == nil:
		return e.countOnly(ctx, path)
	}
	return e.countGroups(ctx, path, groupBy, field)
}

// countGroups reads the value at path whole to group its entries: j and a
// only up to maxMaterialized entries, so that a grouped count stays
// bounded (their pages come from the store, not from one value). j by
// status, the grouping a caller with many jobs asks for, the store counts.
func (e *Engine) countGroups(ctx context.Context, path, groupBy string, field []string) (*CountResult, error) {
	c, p, err := e.callerAt(ctx, path)
	if err != nil {
		return nil, err
	}
	if len(p.Segments) == 1 && p.Namespace() == venue.NSJobs && groupBy == "status" {
		return e.countJobsByStatus(ctx, c)
	}
	v, ok, err := e.value(ctx, c, p)
	switch tm := (*errTooMany)(nil); {
	case errors.As(err, &tm):
		return nil, venue.Errorf(venue.EINVALID, "Cannot group %s by %q: it holds more than %d entries, more than a grouped count reads; "+
			"count it without groupBy, or page through it with slice", p, groupBy, maxMaterialized)
	case err != nil:
		return nil, err
	case !ok:
		return &CountResult{}, nil
	}
	x, ok := e.entriesOf(v)
	if !ok {
		return &CountResult{}, nil
	}
	groups, ok := groupEntries(x.count(), func(i int) json.RawMessage { return x.value(v, i) }, field)
	if !ok {
		return nil, venue.Errorf(venue.EINVALID, "Grouping %s by %q gives more than %d groups: group by a field with fewer distinct values",
			p, groupBy, MaxGroups)
	}
	n := x.count()
	return &CountResult{Exists: true, Count: &n, Groups: groups}, nil
}

// countJobsByStatus groups the caller's jobs by status in the store, with
// no cap on how many there are: a record's status is its row's, so no
// record is read. It answers as grouping the records would: a caller with
// no jobs has a count of 0 and no groups.
func (e *Engine) countJobsByStatus(ctx context.Context, c venue.Caller) (*CountResult, error) {
	counts, err := e.store.JobStatusCounts(ctx, c.DID)
	if err != nil {
		return nil, err
	}
	groups := make(map[string]CountGroup, len(counts))
	n := 0
	for st, k := range counts {
		groups[string(st)] = CountGroup{Count: k}
		n += k
	}
	return &CountResult{Exists: true, Count: &n, Groups: groups}, nil
}

// countOnly counts through List, which counts j and a from the store's
// totals and a map in w, o or g from its rows, without assembling it.
func (e *Engine) countOnly(ctx context.Context, path string) (*CountResult, error) {
	l, err := e.List(ctx, path, 0, 1)
	switch {
	case err != nil:
		return nil, err
	case !l.Exists || l.Type != "Map" && l.Type != "Vector":
		return &CountResult{}, nil
	}
	return &CountResult{Exists: true, Count: &l.Count}, nil
}

// groupField splits groupBy into field names; "" is no grouping (nil).
func groupField(groupBy string) ([]string, error) {
	switch {
	case groupBy == "":
		return nil, nil
	case len(groupBy) > venue.MaxPathLen:
		return nil, venue.Errorf(venue.EINVALID, "groupBy is too long: %d bytes, the limit is %d", len(groupBy), venue.MaxPathLen)
	}
	field := strings.Split(groupBy, "/")
	for _, f := range field {
		switch f {
		case "":
			return nil, venue.Errorf(venue.EINVALID, "groupBy %q has an empty field name: remove the leading, doubled or trailing '/'", groupBy)
		case ".", "..":
			// As list's fields: a path below each entry, never above it.
			return nil, venue.Errorf(venue.EINVALID, "groupBy %q has a '.' or '..' field name: name the fields below each entry, such as status or meta/kind", groupBy)
		}
	}
	return field, nil
}

// entriesOf indexes the entries of a map or vector (see entries.go); it
// reports false for anything else, and for text that is not JSON.
func (e *Engine) entriesOf(v json.RawMessage) (*entryIndex, bool) {
	if t := typeOf(v); t != "Map" && t != "Vector" {
		return nil, false
	}
	x, err := e.indexes.index(v)
	return x, err == nil
}

// groupEntries counts the n entries, entry(i) each, by groupKey, or
// reports false past MaxGroups groups.
func groupEntries(n int, entry func(i int) json.RawMessage, field []string) (map[string]CountGroup, bool) {
	groups := map[string]CountGroup{}
	for i := range n {
		k := groupKey(entry(i), field)
		g, seen := groups[k]
		if !seen && len(groups) == MaxGroups {
			return nil, false
		}
		g.Count++
		groups[k] = g
	}
	return groups, true
}

// groupKey is the group of an entry: the value of the field, reached
// through objects only (a field name is not an index), as its text if it
// is a string and as compact JSON otherwise ("3", "true", "null"). An
// entry without the field is in group "null", as in the reference venue.
func groupKey(entry json.RawMessage, field []string) string {
	v := entry
	for _, name := range field {
		var m map[string]json.RawMessage
		if typeOf(v) != "Map" || json.Unmarshal(v, &m) != nil {
			return "null"
		}
		next, ok := m[name]
		if !ok {
			return "null"
		}
		v = next
	}
	var s string
	if typeOf(v) == "String" && json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return "null"
	}
	return b.String()
}
