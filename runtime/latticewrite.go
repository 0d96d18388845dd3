package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// DefaultMaxValueSize bounds one stored lattice value.
const DefaultMaxValueSize = 4 << 20

// Write stores value at path in the caller's lattice, creating the maps on
// the way (a value stored at an ancestor is edited in place).
// Returns EINVALID for a malformed path or value, EFORBIDDEN for a
// namespace the caller cannot write (g/ among them: see ordinary),
// ETOOLARGE past the value size limit.
func (e *Engine) Write(ctx context.Context, path string, value json.RawMessage) error {
	c, p, err := e.ordinary(ctx, path)
	if err != nil {
		return err
	}
	v, err := e.checkValue(value)
	if err == nil {
		err = refuseDeepAt(p, v, 0)
	}
	if err != nil {
		return err
	}
	return e.store.UpdatePaths(ctx, c.DID, p.String(), func(rows []ValueRow) ([]ValueRow, []string, error) {
		return e.bounded(setRows(rows, p.String(), v))
	})
}

// Delete removes the value at path from the caller's lattice and reports
// whether there was one.
func (e *Engine) Delete(ctx context.Context, path string) (bool, error) {
	c, p, err := e.ordinaryFor(ctx, path, venue.AbilityDelete)
	if err != nil {
		return false, err
	}
	deleted := false
	err = e.store.UpdatePaths(ctx, c.DID, p.String(), func(rows []ValueRow) ([]ValueRow, []string, error) {
		put, del, ok, err := deleteRows(rows, p.String())
		deleted = ok
		return put, del, err
	})
	return deleted, err
}

// Append adds value to the end of the vector at path, creating the vector
// if nothing is there, and returns its index.
// Returns EINVALID if a value other than a vector is there.
func (e *Engine) Append(ctx context.Context, path string, value json.RawMessage) (int, error) {
	c, p, err := e.ordinary(ctx, path)
	if err != nil {
		return 0, err
	}
	v, err := e.checkValue(value)
	if err == nil {
		err = refuseDeepAt(p, v, 1)
	}
	if err != nil {
		return 0, err
	}
	index := 0
	err = e.store.UpdatePaths(ctx, c.DID, p.String(), func(rows []ValueRow) ([]ValueRow, []string, error) {
		cur, ok := stored(rows, p.String())
		if t := typeOf(cur); ok && t != "Vector" && t != "Null" {
			return nil, nil, venue.Errorf(venue.EINVALID, "Cannot append to %s: it holds %s, not a vector", p, withArticle(jsonKind(cur)))
		}
		if !ok || typeOf(cur) == "Null" {
			cur = nil
		}
		index = e.indexes.elements(cur)
		grown := withElement(cur, v)
		e.indexes.noteElements(grown, index+1)
		return e.bounded(setRows(rows, p.String(), grown))
	})
	return index, err
}

// Copy writes the value at from (any path the caller can read) to to.
// Returns ENOTFOUND if nothing is at from.
func (e *Engine) Copy(ctx context.Context, from, to string) error {
	res, err := e.Read(ctx, from, e.maxValueSize())
	if err != nil {
		return err
	}
	if !res.Exists {
		return venue.Errorf(venue.ENOTFOUND, "Nothing to copy at %s", from)
	}
	if res.Truncated && res.ValueBytes == 0 {
		return venue.Errorf(venue.ETOOLARGE, "Cannot copy %s: it holds too many entries to read at once; copy its parts (list or slice names them)", from)
	}
	if res.Truncated {
		return venue.Errorf(venue.ETOOLARGE, "Cannot copy %s: its %d bytes exceed the value size limit of %d", from, res.ValueBytes, e.maxValueSize())
	}
	return e.Write(ctx, to, res.Value)
}

// ordinary checks that the caller may write path with an ordinary lattice
// write (core:write, delete, append, copy): its own w and o. The
// agent namespace g/ is the agent engine's alone, which writes it with
// UpdateTree: an agent's record holds the capabilities it acts with, its
// status and lease, and the tasks whose jobs it ends, so a record written
// by hand could claim another user's data or skip agent:create's checks.
func (e *Engine) ordinary(ctx context.Context, path string) (venue.Caller, venue.Path, error) {
	return e.ordinaryFor(ctx, path, venue.AbilityWrite)
}

// ordinaryFor is ordinary for ability can: deleting takes crud/delete,
// which crud/write does not cover.
func (e *Engine) ordinaryFor(ctx context.Context, path, can string) (venue.Caller, venue.Path, error) {
	c, p, err := e.writableFor(ctx, path, can)
	if err == nil && p.Namespace() == venue.NSAgents {
		err = venue.Errorf(venue.EFORBIDDEN, "Agent state under g/ is changed by the agent operations only: use v/ops/agent/create, update, delete (and the others of v/ops/agent) instead of writing %s", p)
	}
	return c, p, err
}

// writable checks that the caller may write path: its own w, o and g.
func (e *Engine) writable(ctx context.Context, path string) (venue.Caller, venue.Path, error) {
	return e.writableFor(ctx, path, venue.AbilityWrite)
}

func (e *Engine) writableFor(ctx context.Context, path, can string) (venue.Caller, venue.Path, error) {
	c, p, err := e.callerFor(ctx, path, can)
	if err != nil {
		return c, p, err
	}
	switch p.Namespace() {
	case venue.NSWorkspace, venue.NSPins, venue.NSAgents:
		if len(p.Segments) < 2 && can == venue.AbilityDelete {
			return c, p, venue.Errorf(venue.EINVALID, "Cannot delete the whole %s namespace: delete below it, e.g. %s/name", p.Namespace(), p.Namespace())
		}
		if len(p.Segments) < 2 {
			return c, p, venue.Errorf(venue.EINVALID, "Cannot replace the whole %s namespace: write below it, e.g. %s/name", p.Namespace(), p.Namespace())
		}
		return c, p, nil
	case venue.NSSecrets:
		return c, p, venue.Errorf(venue.EFORBIDDEN, "Secrets are written with v/ops/secret/set or PUT /api/v1/secrets/{name}, never through the lattice")
	case venue.NSAssets:
		return c, p, venue.Errorf(venue.EFORBIDDEN, "Assets are immutable: register new metadata with POST /api/v1/assets")
	case venue.NSJobs:
		return c, p, venue.Errorf(venue.EFORBIDDEN, "Job records are written by the venue only")
	}
	return c, p, venue.Errorf(venue.EFORBIDDEN, "The venue namespace v/ is read-only")
}

// MaxValueSize is the largest value one lattice row may hold: a write of a
// larger one fails with ETOOLARGE.
func (e *Engine) MaxValueSize() int { return e.maxValueSize() }

func (e *Engine) maxValueSize() int {
	if e.cfg.MaxValueSize > 0 {
		return e.cfg.MaxValueSize
	}
	return DefaultMaxValueSize
}

// bounded refuses a change that would store a row past the value size
// limit: a value written inside one stored whole, or appended to one,
// grows that row, and the value given alone may be small.
func (e *Engine) bounded(put []ValueRow, del []string, err error) ([]ValueRow, []string, error) {
	for _, r := range put {
		if err == nil && len(r.Value) > e.maxValueSize() {
			err = venue.Errorf(venue.ETOOLARGE, "Value at %s would grow to %d bytes, past the limit of %d: store its parts at paths of their own", r.Path, len(r.Value), e.maxValueSize())
		}
	}
	return put, del, err
}

// checkValue compacts a value (proving it is JSON) and bounds its size.
func (e *Engine) checkValue(v json.RawMessage) (json.RawMessage, error) {
	if len(v) > e.maxValueSize() {
		return nil, venue.Errorf(venue.ETOOLARGE, "Value of %d bytes exceeds the limit of %d", len(v), e.maxValueSize())
	}
	if len(bytes.TrimSpace(v)) == 0 {
		return nil, venue.Errorf(venue.EINVALID, "A value is required: give any JSON value")
	}
	if err := refuseDeep("Value", v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Value is not valid JSON: %v", err)
	}
	if err := refuseDuplicates("Value", buf.Bytes()); err != nil {
		return nil, err
	}
	if err := refuseMisread("Value", buf.Bytes()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// refuseDeepAt refuses a value that would nest past maxDepth counted from
// its namespace's map: written at w/a/b (or appended there, extra 1), it
// stands three levels below what a read of w answers. Counting the value
// alone would let a deep value below a deep one build a document no read
// of its namespace could answer.
func refuseDeepAt(p venue.Path, v json.RawMessage, extra int) error {
	below := len(p.Segments) - 1 + extra
	if jsonscan.Deeper(v, maxDepth-below) {
		return venue.Errorf(venue.EINVALID, "Value at %s nests more than %d levels deep, which %d levels below %s/ is more than the %d the venue keeps: store it higher up, or nest it less",
			p, maxDepth-below, below, p.Namespace(), maxDepth)
	}
	return nil
}

// stored is assemble for the rows UpdatePaths gives, whose rows below path
// carry no value: a map made of them comes back as {}, enough to tell its
// kind.
func stored(rows []ValueRow, path string) (json.RawMessage, bool) {
	for _, r := range rows {
		if r.Path == path || strings.HasPrefix(path, r.Path+"/") {
			return assemble([]ValueRow{r}, path)
		}
	}
	return json.RawMessage("{}"), len(rows) > 0
}

// assemble is readValue over rows already loaded, in path order.
func assemble(rows []ValueRow, path string) (json.RawMessage, bool) {
	v := newValueFrom(path)
	for _, r := range rows {
		if v.add(r) != nil {
			break
		}
	}
	return v.value()
}

// setRows computes the change that stores v at path: an edit of an
// ancestor's value if one is stored, else a row at path replacing every
// row below it.
func setRows(rows []ValueRow, path string, v json.RawMessage) ([]ValueRow, []string, error) {
	var del []string
	for _, r := range rows {
		if rest, ok := relSegments(path, r.Path); ok {
			next, err := setIn(r.Value, r.Path, rest, v)
			if err != nil {
				return nil, nil, err
			}
			return []ValueRow{{Path: r.Path, Value: next}}, nil, nil
		}
		if r.Path != path {
			del = append(del, r.Path)
		}
	}
	return []ValueRow{{Path: path, Value: v}}, del, nil
}

// deleteRows computes the change that removes the value at path.
func deleteRows(rows []ValueRow, path string) ([]ValueRow, []string, bool, error) {
	var del []string
	for _, r := range rows {
		if rest, ok := relSegments(path, r.Path); ok {
			next, found, err := deleteIn(r.Value, rest)
			if err != nil || !found {
				return nil, nil, false, err
			}
			return []ValueRow{{Path: r.Path, Value: next}}, nil, true, nil
		}
		del = append(del, r.Path)
	}
	return nil, del, len(del) > 0, nil
}

// setIn returns doc, the value at path at, with v stored at segs below it,
// creating maps where nothing (or null) is. A vector element is replaced
// by index. A string, number or boolean in the way is refused rather than
// replaced by a map: writing below a value must not lose it. The rest of
// doc is kept as written (see splice.go).
func setIn(doc json.RawMessage, at string, segs []string, v json.RawMessage) (json.RawMessage, error) {
	if len(segs) == 0 {
		return v, nil
	}
	below := at + "/" + segs[0]
	switch typeOf(doc) {
	case "Vector":
		i, err := vectorIndex(segs[0])
		start, end, n, ok := element(doc, i)
		if err != nil || !ok {
			n = elementCount(doc)
			return nil, venue.Errorf(venue.EINVALID, "Index %q is not in the vector of %d elements: use 0 to %d, or append", segs[0], n, n-1)
		}
		next, err := setIn(doc[start:end], below, segs[1:], v)
		if err != nil {
			return nil, err
		}
		return splice(doc, start, end, next), nil
	case "Map":
		if _, vs, ve, ok := memberValue(doc, segs[0]); ok {
			next, err := setIn(doc[vs:ve], below, segs[1:], v)
			if err != nil {
				return nil, err
			}
			return splice(doc, vs, ve, next), nil
		}
		next, err := setIn(nil, below, segs[1:], v)
		if err != nil {
			return nil, err
		}
		return withMember(doc, segs[0], next), nil
	case "Null": // nothing there, or null
		next, err := setIn(nil, below, segs[1:], v)
		if err != nil {
			return nil, err
		}
		return withMember(nil, segs[0], next), nil
	}
	return nil, venue.Errorf(venue.EINVALID, "Cannot write below %s: it holds %s, not a map or vector; write %s itself to replace it", at, withArticle(jsonKind(doc)), at)
}

// deleteIn returns doc without the value at segs and whether it was there.
func deleteIn(doc json.RawMessage, segs []string) (json.RawMessage, bool, error) {
	var start, vs, ve int
	switch typeOf(doc) {
	case "Map":
		var ok bool
		if start, vs, ve, ok = memberValue(doc, segs[0]); !ok {
			return doc, false, nil
		}
	case "Vector":
		i, err := vectorIndex(segs[0])
		var ok bool
		if start, ve, _, ok = element(doc, i); err != nil || !ok {
			return doc, false, nil
		}
		vs = start
	default:
		return doc, false, nil
	}
	if len(segs) == 1 {
		return cut(doc, start, ve), true, nil
	}
	next, found, err := deleteIn(doc[vs:ve], segs[1:])
	if err != nil || !found {
		return doc, found, err
	}
	return splice(doc, vs, ve, next), true, nil
}

// withArticle puts "a" or "an" before a kind of JSON value.
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
