package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// The lattice is one tree of JSON values seen through the caller's eyes:
// v (the venue: catalog and info) and a (assets) are shared; w, o, g, j and s
// are the caller's own. Reads never fail for an absent path: they answer
// "exists": false.

// Default and maximum sizes of lattice reads.
const (
	DefaultMaxReadSize = 1_000_000
	DefaultSliceLimit  = 100
	MaxSliceLimit      = 1000
)

// ReadResult is the answer to a lattice read.
type ReadResult struct {
	Exists     bool            `json:"exists"`
	Value      json.RawMessage `json:"value"`
	ValueBytes int             `json:"valueBytes"`
	Type       string          `json:"type,omitempty"`      // set when truncated
	Truncated  bool            `json:"truncated,omitempty"` // the value exceeds maxSize
	Size       int             `json:"size,omitempty"`      // same as valueBytes, when truncated
}

// AppendJSON appends r as encoding/json would encode it. Its value is JSON
// the engine made or checked, so it is copied, not validated again: the
// Wasm host hands every read to a guest this way.
func (r *ReadResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"exists":`...)
	b = strconv.AppendBool(b, r.Exists)
	b = append(b, `,"value":`...)
	if len(r.Value) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, r.Value...)
	}
	b = append(b, `,"valueBytes":`...)
	b = strconv.AppendInt(b, int64(r.ValueBytes), 10)
	if r.Type != "" {
		b = append(b, `,"type":`...)
		b = venue.AppendString(b, r.Type)
	}
	if r.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if r.Size != 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, int64(r.Size), 10)
	}
	return append(b, '}')
}

// Read returns the value at path as the caller sees it; values larger than
// maxSize bytes (≤ 0 means DefaultMaxReadSize) come back truncated, with
// their type and size but no value.
// Returns EINVALID for a malformed path.
func (e *Engine) Read(ctx context.Context, path string, maxSize int) (*ReadResult, error) {
	c, p, err := e.callerAt(ctx, path)
	if err != nil {
		return nil, err
	}
	maxSize = e.readSize(maxSize)
	v, ok, err := e.valueUpTo(ctx, c, p, maxSize)
	return readAnswer(p, v, ok, err, maxSize)
}

// readSize is the bound of a read asked for maxSize bytes.
func (e *Engine) readSize(maxSize int) int {
	if maxSize <= 0 {
		maxSize = DefaultMaxReadSize
	}
	return min(maxSize, e.readCap())
}

// readAnswer is what a read of p within maxSize bytes answers when it
// found v (ok: a value is there) or err.
func readAnswer(p venue.Path, v json.RawMessage, ok bool, err error, maxSize int) (*ReadResult, error) {
	if tm := (*errTooMany)(nil); errors.As(err, &tm) {
		return &ReadResult{Exists: true, Value: json.RawMessage("null"), Type: "Map", Truncated: true}, nil
	}
	if tl := (*errTooLarge)(nil); errors.As(err, &tl) {
		return &ReadResult{Exists: true, Value: json.RawMessage("null"), ValueBytes: tl.size,
			Type: "Map", Truncated: true, Size: tl.size}, nil
	}
	if err != nil || !ok {
		return &ReadResult{Value: json.RawMessage("null")}, err
	}
	if len(v) > maxSize {
		return &ReadResult{Exists: true, Value: json.RawMessage("null"), ValueBytes: len(v),
			Type: typeOf(v), Truncated: true, Size: len(v)}, nil
	}
	if err := refuseDeepRead(p.String(), v, 1); err != nil {
		return nil, err
	}
	return &ReadResult{Exists: true, Value: v, ValueBytes: len(v)}, nil
}

// SliceResult is a page of the entries of a map or the elements of a vector.
// Map entries are {"key", "value"} objects in key order (for a map stored
// as rows, path order: see subtree.go).
type SliceResult struct {
	Exists bool              `json:"exists"`
	Type   string            `json:"type,omitempty"`
	Count  int               `json:"count"`
	Values []json.RawMessage `json:"values"`
	Offset int               `json:"offset"`
	Limit  int               `json:"limit"`
}

// Slice returns limit entries from offset of the map or vector at path
// (limit ≤ 0 means DefaultSliceLimit). A scalar has a type but no entries.
// Returns EINVALID for a malformed path, a limit above MaxSliceLimit or a
// page over DefaultMaxReadSize bytes (unless it is one entry).
func (e *Engine) Slice(ctx context.Context, path string, offset, limit int) (*SliceResult, error) {
	return e.SliceUpTo(ctx, path, offset, limit, 0)
}

// SliceUpTo is Slice with a page of at most maxSize bytes (≤ 0 means
// DefaultMaxReadSize; at most MaxReadSize counts).
func (e *Engine) SliceUpTo(ctx context.Context, path string, offset, limit, maxSize int) (*SliceResult, error) {
	res, err := e.sliceUpTo(ctx, path, offset, limit, maxSize)
	if err != nil {
		return res, err
	}
	for i, v := range res.Values {
		// Inside "values" inside the answer.
		if err := refuseDeepRead(path, v, 2); err != nil {
			return nil, venue.Errorf(venue.EINVALID, "The entry %s of %s nests more than a read answers: page past it (offset %d) or read a path below it",
				entryKey(res, i), clipRef(path), res.Offset+i+1)
		}
	}
	return res, nil
}

// entryKey names entry i of a slice's page: its key, or its index.
func entryKey(res *SliceResult, i int) string {
	var kv struct {
		Key *string `json:"key"`
	}
	if res.Type != "Vector" && json.Unmarshal(res.Values[i], &kv) == nil && kv.Key != nil {
		return clipRef(*kv.Key)
	}
	return strconv.Itoa(res.Offset + i)
}

func (e *Engine) sliceUpTo(ctx context.Context, path string, offset, limit, maxSize int) (*SliceResult, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxReadSize
	}
	maxSize = min(maxSize, e.readCap())
	c, p, err := e.callerAt(ctx, path)
	if err != nil {
		return nil, err
	}
	if limit, err = sliceLimit(offset, limit); err != nil {
		return nil, err
	}
	res := &SliceResult{Offset: offset, Limit: limit, Values: []json.RawMessage{}}
	if len(p.Segments) == 1 && p.Namespace() == venue.NSJobs {
		return e.sliceJobs(ctx, c, res, maxSize)
	}
	if len(p.Segments) == 1 && p.Namespace() == venue.NSAssets {
		return e.sliceAssets(ctx, res, maxSize)
	}
	if storedNamespace(p) {
		return e.sliceRows(ctx, c.DID, p.String(), res, maxSize)
	}
	v, ok, err := e.value(ctx, c, p)
	if err != nil || !ok {
		return res, err
	}
	return res, e.slicePage(v, res, e.pageBudget(p.String(), offset, maxSize))
}

// sliceRows pages the map assembled from the caller's rows below path as
// they stream (sliceStored), or else the value stored whole at path or an
// ancestor, from the row the stream began with.
func (e *Engine) sliceRows(ctx context.Context, owner, path string, res *SliceResult, maxSize int) (*SliceResult, error) {
	whole, err := e.sliceStored(ctx, owner, path, res, maxSize)
	if !errors.Is(err, errWhole) {
		return res, err
	}
	res.Count, res.Values = 0, res.Values[:0] // a write replaced the rows meanwhile
	v, ok := assemble([]ValueRow{whole}, path)
	if !ok {
		return res, nil
	}
	return res, e.slicePage(v, res, e.pageBudget(path, res.Offset, maxSize))
}

// callerAt returns whose namespace path reads (see callerFor) and the
// parsed path.
func (e *Engine) callerAt(ctx context.Context, path string) (venue.Caller, venue.Path, error) {
	return e.callerFor(ctx, path, venue.AbilityRead)
}

func sliceLimit(offset, limit int) (int, error) {
	switch {
	case offset < 0:
		return 0, venue.Errorf(venue.EINVALID, "offset must be 0 or more, got %d", offset)
	case limit > MaxSliceLimit:
		return 0, venue.Errorf(venue.EINVALID, "limit must be at most %d, got %d", MaxSliceLimit, limit)
	case limit <= 0:
		return DefaultSliceLimit, nil
	}
	return limit, nil
}

// sliceJobs pages the caller's jobs straight from the store, which may hold
// far more of them than one read should load: their ids first, then each
// record while the page has room (a record may be megabytes).
func (e *Engine) sliceJobs(ctx context.Context, c venue.Caller, res *SliceResult, maxSize int) (*SliceResult, error) {
	rows, total, err := e.store.ListJobs(ctx, c.DID, res.Offset, res.Limit, false)
	if err != nil {
		return nil, err
	}
	res.Exists, res.Type, res.Count = true, "Map", total
	page := e.pageBudget(venue.NSJobs, res.Offset, maxSize)
	err = e.eachRecord(ctx, rows, func(id string, rec []byte) error {
		if err := page.take(id, len(rec)); err != nil {
			return err
		}
		res.Values = append(res.Values, entry(id, rec))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// eachRecord calls fn with the stored record of each job of rows (listed
// without their records), fetched one at a time since a record may be
// megabytes; a job deleted meanwhile is skipped.
func (e *Engine) eachRecord(ctx context.Context, rows []JobRow, fn func(id string, rec []byte) error) error {
	for _, r := range rows {
		row, err := e.store.Job(ctx, r.ID)
		switch {
		case venue.ErrorCode(err) == venue.ENOTFOUND:
			continue
		case err != nil:
			return err
		}
		if err := fn(r.ID.String(), row.Record); err != nil {
			return err
		}
	}
	return nil
}

// sliceAssets pages the venue's assets straight from the store, as
// sliceJobs does jobs.
func (e *Engine) sliceAssets(ctx context.Context, res *SliceResult, maxSize int) (*SliceResult, error) {
	ids, total, err := e.store.ListAssets(ctx, res.Offset, res.Limit)
	if err != nil {
		return nil, err
	}
	res.Exists, res.Type, res.Count = true, "Map", total
	page := e.pageBudget(venue.NSAssets, res.Offset, maxSize)
	for _, id := range ids {
		meta, err := e.store.Asset(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := page.take(id.String(), len(meta)); err != nil {
			return nil, err
		}
		res.Values = append(res.Values, entry(id.String(), meta))
	}
	return res, nil
}

// slicePage fills res with a page of the map or vector v, within budget
// (see entries.go).
func (e *Engine) slicePage(v json.RawMessage, res *SliceResult, budget *pageBudget) error {
	res.Exists, res.Type = true, typeOf(v)
	if res.Type != "Map" && res.Type != "Vector" {
		return nil
	}
	x, err := e.indexes.index(v)
	if err != nil {
		return err
	}
	res.Count = x.count()
	for i := res.Offset; i < min(x.count(), res.Offset+res.Limit); i++ {
		key, value := strconv.Itoa(i), json.RawMessage(nil)
		if x.isMap {
			key, value = x.member(v, i)
		} else {
			value = x.element(v, i)
		}
		if err := budget.take(key, len(value)); err != nil {
			return err
		}
		if x.isMap {
			value = entry(key, value)
		} else {
			value = bytes.Clone(value) // not the whole text's memory held by the answer
		}
		res.Values = append(res.Values, value)
	}
	return nil
}

func entry(key string, value json.RawMessage) json.RawMessage {
	b := append(venue.AppendString([]byte(`{"key":`), key), `,"value":`...)
	return append(append(b, value...), '}')
}

// typeOf names the kind of a JSON value as lattice results do.
func typeOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "Null"
	}
	switch v[0] {
	case '{':
		return "Map"
	case '[':
		return "Vector"
	case '"':
		return "String"
	case 't', 'f':
		return "Boolean"
	case 'n':
		return "Null"
	}
	return "Number"
}

// refuseDeepRead refuses to answer a value that, wrapped levels deep in
// the answer, would nest past what an operation may output: the read
// operations answer through their output and the /values endpoints
// directly, and both must agree. Only a job's record (an output inside
// it) or an output of a read can be that deep.
func refuseDeepRead(path string, v json.RawMessage, wrapped int) error {
	limit := maxOutputDepth - wrapped
	if len(v) > 2*limit && jsonscan.Deeper(v, limit) {
		return venue.Errorf(venue.EINVALID, "The value at %s nests more than %d levels deep, more than a read answers: read a path below it", path, limit)
	}
	return nil
}

// walk descends from the JSON value v along segs: object members by key,
// array elements by index.
func walk(v json.RawMessage, segs []string) (json.RawMessage, bool) {
	for _, s := range segs {
		switch typeOf(v) {
		case "Map":
			_, vs, ve, ok := memberValue(v, s)
			if !ok {
				return nil, false
			}
			v = v[vs:ve]
		case "Vector":
			i, err := vectorIndex(s)
			start, end, _, ok := element(v, i)
			if err != nil || !ok {
				return nil, false
			}
			v = v[start:end]
		default:
			return nil, false
		}
	}
	return v, true
}

// vectorIndex reads a path segment as an index into a vector: decimal
// digits with no sign and no leading zero, so that each element has one
// path ("01" and "+1" are not element 1).
func vectorIndex(seg string) (int, error) {
	if seg == "" || len(seg) > 1 && seg[0] == '0' || seg[0] < '0' || seg[0] > '9' {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(seg)
}

// relSegments returns the segments of row path below base, if it is below.
func relSegments(row, base string) ([]string, bool) {
	rest, ok := strings.CutPrefix(row, base+"/")
	if !ok {
		return nil, false
	}
	return strings.Split(rest, "/"), true
}

// ListResult names the keys of a map (a page of them) or counts a vector.
type ListResult struct {
	Exists bool     `json:"exists"`
	Type   string   `json:"type,omitempty"`
	Count  int      `json:"count"`
	Keys   []string `json:"keys,omitzero"` // for a map, [] when it has none in the page
	Offset int      `json:"offset"`
	// Values holds, for ListFields, each key's fields.
	Values map[string]map[string]FieldValue `json:"values,omitempty"`
}

// DefaultListLimit is how many keys List returns when not told.
const DefaultListLimit = 1000

// List returns limit keys from offset of the map at path (limit ≤ 0 means
// DefaultListLimit), or the count of a vector; a scalar has a type only.
// Returns EINVALID for a malformed path or a limit above MaxSliceLimit.
func (e *Engine) List(ctx context.Context, path string, offset, limit int) (*ListResult, error) {
	res, _, err := e.list(ctx, path, offset, limit)
	return res, err
}

// listedMap is a map a list paged, when it is stored whole (at its path or
// inside a value above it) in the caller's rows: its text, its index, and
// how many segments its path has.
type listedMap struct {
	text  json.RawMessage
	index *entryIndex
	depth int
}

// list is List, which also returns the map it paged when it is stored
// whole, for ListFields to read its keys' fields from (see readField).
func (e *Engine) list(ctx context.Context, path string, offset, limit int) (*ListResult, *listedMap, error) {
	c, p, err := e.callerAt(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	if _, err := sliceLimit(offset, limit); err != nil {
		return nil, nil, err
	}
	res := &ListResult{Offset: offset}
	if len(p.Segments) == 1 && (p.Namespace() == venue.NSJobs || p.Namespace() == venue.NSAssets) {
		return res, nil, e.listIDs(ctx, c, p.Namespace(), res, limit)
	}
	if storedNamespace(p) {
		err := e.listStored(ctx, c.DID, p.String(), res, limit)
		if !errors.Is(err, errWhole) {
			if res.Keys == nil && res.Exists {
				res.Keys = []string{}
			}
			return res, nil, err
		}
		res.Count, res.Keys = 0, nil // a write replaced the rows meanwhile
	}
	v, ok, err := e.value(ctx, c, p)
	if err != nil || !ok {
		return res, nil, err
	}
	x, err := e.listPage(v, res, limit)
	if x == nil || !storedNamespace(p) {
		return res, nil, err
	}
	return res, &listedMap{text: v, index: x, depth: len(p.Segments)}, err
}

// listIDs fills res with a page of the ids of the caller's jobs (ns j) or
// the venue's assets (a), from the store's index.
func (e *Engine) listIDs(ctx context.Context, c venue.Caller, ns string, res *ListResult, limit int) error {
	var (
		ids   []string
		total int
		err   error
	)
	if ns == venue.NSJobs {
		var rows []JobRow
		rows, total, err = e.store.ListJobs(ctx, c.DID, res.Offset, limit, false)
		for _, r := range rows {
			ids = append(ids, r.ID.String())
		}
	} else {
		var assets []venue.AssetID
		assets, total, err = e.store.ListAssets(ctx, res.Offset, limit)
		for _, id := range assets {
			ids = append(ids, id.String())
		}
	}
	res.Exists, res.Type, res.Count, res.Keys = true, "Map", total, append([]string{}, ids...)
	return err
}

// listPage fills res with a page of the keys of the map v, or the count of
// the vector v (see entries.go), and returns its index. Text that is not
// JSON lists as empty, as it did when it was decoded.
func (e *Engine) listPage(v json.RawMessage, res *ListResult, limit int) (*entryIndex, error) {
	res.Exists, res.Type = true, typeOf(v)
	if res.Type != "Map" && res.Type != "Vector" {
		return nil, nil
	}
	if res.Type == "Map" {
		res.Keys = []string{}
	}
	x, err := e.indexes.index(v)
	if venue.ErrorCode(err) == venue.ETOOLARGE {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	res.Count = x.count()
	for i := res.Offset; x.isMap && i < min(x.count(), res.Offset+limit); i++ {
		k, _ := x.member(v, i)
		res.Keys = append(res.Keys, k)
	}
	return x, nil
}
