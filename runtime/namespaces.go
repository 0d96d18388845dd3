package runtime

import (
	"context"
	"encoding/json"
	"fmt"

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
		return e.jobsValue(ctx, c, segs[1:])
	case venue.NSSecrets:
		return e.secretsValue(ctx, c, segs[1:])
	case venue.NSAssets:
		return e.assetsValue(ctx, segs[1:])
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
func (e *Engine) jobsValue(ctx context.Context, c venue.Caller, segs []string) (json.RawMessage, bool, error) {
	if len(segs) == 0 {
		rows, total, err := e.store.ListJobs(ctx, c.DID, 0, maxMaterialized, true)
		if err == nil && total > maxMaterialized {
			err = &errTooMany{}
		}
		if err != nil {
			return nil, false, err
		}
		return rowsMap(len(rows), func(i int) (string, json.RawMessage) { return rows[i].ID.String(), rows[i].Record }), true, nil
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
		return rowsMap(len(times), func(i int) (string, json.RawMessage) { return times[i].Name, secretShown(times[i].Updated) }), true, nil
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

// assetsValue reads a (asset metadata by id) or one asset's metadata.
func (e *Engine) assetsValue(ctx context.Context, segs []string) (json.RawMessage, bool, error) {
	if len(segs) == 0 {
		ids, total, err := e.store.ListAssets(ctx, 0, maxMaterialized)
		if err == nil && total > maxMaterialized {
			err = &errTooMany{}
		}
		if err != nil {
			return nil, false, err
		}
		metas := make([]json.RawMessage, len(ids))
		for i, id := range ids {
			if metas[i], err = e.store.Asset(ctx, id); err != nil {
				return nil, false, err
			}
		}
		return rowsMap(len(ids), func(i int) (string, json.RawMessage) { return ids[i].String(), metas[i] }), true, nil
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

// rowsMap builds a JSON object from n keyed entries, in the order given.
func rowsMap(n int, at func(int) (string, json.RawMessage)) json.RawMessage {
	b := []byte{'{'}
	for i := range n {
		k, v := at(i)
		if i > 0 {
			b = append(b, ',')
		}
		b = venue.AppendString(b, k)
		b = append(append(b, ':'), v...)
	}
	return append(b, '}')
}
