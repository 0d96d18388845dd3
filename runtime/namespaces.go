package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	venue "github.com/gridvenue/venue"
)

// maxMaterialized bounds how many jobs or assets a read of a whole namespace
// gathers; past it the read answers as truncated (errTooMany), and the
// caller pages with List or Slice, which page the store itself.
const maxMaterialized = 1000

// errTooMany is a whole namespace too large to read at once.
type errTooMany struct{}

func (e *errTooMany) Error() string {
	return "too many entries to read at once; page through them with slice"
}

// value returns the JSON value at p as caller c sees it. A value assembled
// from stored rows past readCap bytes is an *errTooLarge.
func (e *Engine) value(ctx context.Context, c venue.Caller, p venue.Path) (json.RawMessage, bool, error) {
	return e.valueUpTo(ctx, c, p, e.readCap())
}

// valueUpTo is value with an assembled value's budget of its own.
func (e *Engine) valueUpTo(ctx context.Context, c venue.Caller, p venue.Path, budget int) (json.RawMessage, bool, error) {
	segs := p.Segments
	switch p.Namespace() {
	case venue.NSVenue:
		return e.venueValue(segs[1:])
	case venue.NSJobs:
		return e.jobsValue(ctx, c, segs[1:], budget)
	case venue.NSSecrets:
		return e.secretsValue(ctx, c, segs[1:])
	case venue.NSAssets:
		return e.assetsValue(ctx, segs[1:], budget)
	}
	return e.readValue(ctx, c.DID, p, budget)
}

// venueValue reads the v tree: catalog entries and venue info.
func (e *Engine) venueValue(segs []string) (json.RawMessage, bool, error) {
	var node any = e.cat.tree
	for i, s := range segs {
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[s]
			if !ok {
				return nil, false, nil
			}
			node = next
		case json.RawMessage:
			v, ok := walk(n, segs[i:])
			return v, ok, nil
		default:
			return nil, false, nil
		}
	}
	v, err := json.Marshal(node)
	return v, true, err
}

// jobsValue reads j (a map of the caller's job records by id) or a record.
// j whole is gathered a record at a time and held only while it fits in
// budget: a record may be tens of megabytes, and a thousand of them read at
// once would hold gigabytes to answer that they do not fit. Past budget
// the records are only measured, and the answer is an *errTooLarge.
func (e *Engine) jobsValue(ctx context.Context, c venue.Caller, segs []string, budget int) (json.RawMessage, bool, error) {
	if len(segs) == 0 {
		rows, total, err := e.store.ListJobs(ctx, c.DID, 0, maxMaterialized, false)
		if err == nil && total > maxMaterialized {
			err = &errTooMany{}
		}
		if err != nil {
			return nil, false, err
		}
		m := boundedMap{budget: budget}
		err = e.eachRecord(ctx, rows, func(id string, rec []byte) error {
			m.add(id, rec)
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		return m.value()
	}
	id, err := venue.ParseJobID(segs[0])
	if err != nil {
		return nil, false, nil
	}
	rec, _, err := e.lookup(ctx, c, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, ok := walk(rec.AppendJSON(nil), segs[1:])
	return v, ok, nil
}

// secretsValue reads s: names and when each was stored, never a value.
func (e *Engine) secretsValue(ctx context.Context, c venue.Caller, segs []string) (json.RawMessage, bool, error) {
	if len(segs) == 0 {
		times, err := e.store.SecretTimes(ctx, c.DID)
		if err != nil {
			return nil, false, err
		}
		m := boundedMap{budget: math.MaxInt} // a thousand names at most (venue.MaxSecrets)
		for _, t := range times {
			m.add(t.Name, secretShown(t.Updated))
		}
		return m.value()
	}
	_, updated, err := e.store.Secret(ctx, c.DID, segs[0])
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, ok := walk(secretShown(updated), segs[1:]) // s/NAME/updated is as readable as s/NAME shows it
	return v, ok, nil
}

// secretShown is what s and s/NAME show of a secret: that it is one, and
// when it was stored; never its value.
func secretShown(updated int64) json.RawMessage {
	return fmt.Appendf(nil, `{"secret":true,"updated":%d}`, updated)
}

// assetsValue reads a (asset metadata by id) or one asset's metadata; a
// whole is held only while it fits in budget, as jobsValue holds j.
func (e *Engine) assetsValue(ctx context.Context, segs []string, budget int) (json.RawMessage, bool, error) {
	if len(segs) == 0 {
		ids, total, err := e.store.ListAssets(ctx, 0, maxMaterialized)
		if err == nil && total > maxMaterialized {
			err = &errTooMany{}
		}
		if err != nil {
			return nil, false, err
		}
		m := boundedMap{budget: budget}
		for _, id := range ids {
			meta, err := e.store.Asset(ctx, id)
			if err != nil {
				return nil, false, err
			}
			m.add(id.String(), meta)
		}
		return m.value()
	}
	id, err := venue.ParseAssetID(segs[0])
	if err != nil {
		return nil, false, nil
	}
	meta, err := e.assetMeta(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, ok := walk(meta, segs[1:])
	return v, ok, nil
}

// boundedMap builds a JSON object entry by entry while it fits in budget
// bytes, and past it only counts the bytes the object would have.
type boundedMap struct {
	budget  int
	buf     []byte // the object so far, while it fits
	head    []byte // scratch: an entry's separator, key and colon
	entries int
	n       int // bytes of the object, braces included
	over    bool
}

func (m *boundedMap) add(key string, v json.RawMessage) {
	m.head = m.head[:0]
	if m.entries == 0 {
		m.n = 2 // the braces
	} else {
		m.head = append(m.head, ',')
	}
	m.head = append(venue.AppendString(m.head, key), ':')
	m.entries++
	m.n += len(m.head) + len(v)
	if m.over || m.n > m.budget {
		m.over, m.buf = true, nil // only measured from here on
		return
	}
	if m.buf == nil {
		m.buf = append(m.buf, '{')
	}
	m.buf = append(append(m.buf, m.head...), v...)
}

// value is the object built, or an *errTooLarge with its size when it did
// not fit.
func (m *boundedMap) value() (json.RawMessage, bool, error) {
	switch {
	case m.over:
		return nil, true, &errTooLarge{size: m.n}
	case m.entries == 0:
		return json.RawMessage("{}"), true, nil
	}
	return append(m.buf, '}'), true, nil
}
