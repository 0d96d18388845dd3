package runtime

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
)

// FieldValue is one field of an entry a list names: the value at the
// entry's path and the field's, as a read answers it.
type FieldValue struct {
	Exists    bool            `json:"exists"`
	Value     json.RawMessage `json:"value"`
	Truncated bool            `json:"truncated,omitempty"`
}

// MaxListFields bounds the fields one list reads per key.
const MaxListFields = 16

// maxFieldSize is the most of one field a list answers; a larger value
// comes back truncated, to be read by itself.
const maxFieldSize = 64 << 10

// ListFields is List with, for each key of a map's page, the values at
// each of fields below it (a field is a path such as "status" or "meta/name"):
// a table of a map's entries in one request, as the reference's clients ask
// for it. Returns EINVALID for more than MaxListFields fields, a malformed
// one, or a path holding something other than a map, and ETOOLARGE when the
// fields of the page pass DefaultMaxReadSize (ask for fewer keys).
func (e *Engine) ListFields(ctx context.Context, path string, offset, limit int, fields []string) (*ListResult, error) {
	if len(fields) > MaxListFields {
		return nil, venue.Errorf(venue.EINVALID, "At most %d fields may be listed, got %d", MaxListFields, len(fields))
	}
	for _, f := range fields {
		if _, err := venue.ParsePath("w/" + f); err != nil || strings.HasPrefix(f, "/") {
			return nil, venue.Errorf(venue.EINVALID, "Field %q is not a path below each key, such as status or meta/name", clipRef(f))
		}
	}
	res, m, err := e.list(ctx, path, offset, limit)
	if err != nil || len(fields) == 0 || !res.Exists {
		return res, err
	}
	if res.Type != "Map" {
		return nil, venue.Errorf(venue.EINVALID, "'fields' needs a map at %s, which holds %s", clipRef(path), withArticle(strings.ToLower(res.Type)))
	}
	res.Values = make(map[string]map[string]FieldValue, len(res.Keys))
	size := 0
	for _, k := range res.Keys {
		row := make(map[string]FieldValue, len(fields))
		for _, f := range fields {
			v := FieldValue{Value: json.RawMessage("null")}
			// A key that is no path segment (it holds a '/', say) has
			// no fields to read: absent.
			if r, err := e.readField(ctx, path, m, k+"/"+f); err == nil {
				v = FieldValue{Exists: r.Exists, Value: r.Value, Truncated: r.Truncated}
			} else if c := venue.ErrorCode(err); c != venue.EINVALID && c != venue.ENOTFOUND {
				return nil, err
			}
			if size += len(k) + len(f) + len(v.Value); size > DefaultMaxReadSize {
				return nil, venue.Errorf(venue.ETOOLARGE, "The fields of this page pass %d bytes: ask for fewer keys (limit) or fields", DefaultMaxReadSize)
			}
			row[f] = v
		}
		res.Values[k] = row
	}
	return res, nil
}

// readField reads below, a path below the map at path, as Read reads
// path/below within maxFieldSize: from m, the map's text, when list had it.
// Loading the map again for each field of each key cost a read of all of
// it: 8 ms each for a map of 4 MB, 14 s for a page of 1000 keys and two
// fields.
func (e *Engine) readField(ctx context.Context, path string, m *listedMap, below string) (*ReadResult, error) {
	full := strings.TrimSuffix(path, "/") + "/" + below
	if m == nil {
		return e.Read(ctx, full, maxFieldSize)
	}
	_, p, err := e.callerAt(ctx, full)
	if err != nil {
		return nil, err
	}
	// p begins with the segments of the map's path, and the map is stored
	// whole: what is below it is inside its text, as Read would find it
	// in the row it is stored in.
	v, ok := m.walk(p.Segments[m.depth:])
	return readAnswer(p, v, ok, nil, e.readSize(maxFieldSize))
}

// walk is walk(m.text, segs), finding the key segs[0] by the map's index
// when it can: walk looks through the members one by one, 2 ms for a key
// of a map of 4 MB.
func (m *listedMap) walk(segs []string) (json.RawMessage, bool) {
	v, found, known := m.index.find(m.text, segs[0])
	switch {
	case !known:
		return walk(m.text, segs)
	case !found:
		return nil, false
	}
	return walk(v, segs[1:])
}
