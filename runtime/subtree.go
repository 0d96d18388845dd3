package runtime

import (
	"context"
	"encoding/json"
	"errors"

	venue "github.com/gridvenue/venue"
)

// A value in w, o or g is either stored whole in one row or assembled from
// the rows below its path. Rows come from the store in path order, in
// which the rows of each map entry come together, so a map is written as
// its rows stream and a read never holds more than it answers with: one
// user's thousand rows of 4 MiB cannot make the venue gather gigabytes to
// find that they do not fit.
//
// Path order is the order of a map's entries too: bytewise by key, except
// that an entry with entries below it sorts as its key followed by '/'
// ("k-b" before "k" when k holds a map stored as rows, after it when k is
// stored whole). Sorting by key instead takes a sort in the database, which
// holds every row before the first comes out.

// MaxReadSize is the most a read assembles from rows; a maxSize above it
// (or above the largest value, when that is larger) counts as that.
const MaxReadSize = 16<<20 - 64<<10

// readCap is the most bytes one read assembles from rows.
func (e *Engine) readCap() int { return max(MaxReadSize, e.maxValueSize()) }

// errTooLarge is a value assembled from rows that is larger than a read's
// budget; size is its full size.
type errTooLarge struct{ size int }

func (e *errTooLarge) Error() string { return e.Unwrap().Error() }

// Unwrap gives callers other than Read, which answers truncated, a coded
// error.
func (e *errTooLarge) Unwrap() error {
	return venue.Errorf(venue.ETOOLARGE, "The value is %d bytes, more than one read assembles: read its parts, or page through it with list or slice", e.size)
}

// Sentinels that end a scan of rows early; never returned to callers.
var (
	errWhole    = errors.New("value stored whole")
	errOver     = errors.New("over budget")
	errPageDone = errors.New("page complete")
)

// assembler writes the JSON object a map's rows make, from rows given in
// path order as their segments below the map, or only counts its bytes.
// Any order in which each entry's rows come together will do.
// Each key is encoded as encoding/json encodes map keys, and each value is
// copied as stored (compact, checked JSON).
type assembler struct {
	buf     []byte   // the object so far, unless counting
	count   bool     // count bytes, write nothing
	n       int      // bytes written or counted
	open    []string // the previous row's segments: the open objects' keys and its own
	scratch []byte
}

// add writes the row at segs holding value v of size bytes (v is nil when
// counting).
func (a *assembler) add(segs []string, v []byte, size int) {
	l := 0
	for l < len(segs) && l < len(a.open) && segs[l] == a.open[l] {
		l++
	}
	if a.open == nil {
		a.write("{")
	} else {
		if l == len(segs) || l == len(a.open) {
			return // not below a map: no two rows nest, so never stored
		}
		for range len(a.open) - 1 - l {
			a.write("}")
		}
		a.write(",")
	}
	for d := l; d < len(segs); d++ {
		a.key(segs[d])
		if d < len(segs)-1 {
			a.write("{")
		}
	}
	a.n += size
	if !a.count {
		a.buf = append(a.buf, v...)
	}
	a.open = segs
}

// size is the size of the object once closed.
func (a *assembler) size() int { return a.n + len(a.open) }

// close ends every open object and returns the JSON.
func (a *assembler) close() json.RawMessage {
	for range len(a.open) {
		a.write("}")
	}
	a.open = nil
	return a.buf
}

func (a *assembler) write(s string) {
	a.n += len(s)
	if !a.count {
		a.buf = append(a.buf, s...)
	}
}

func (a *assembler) key(k string) {
	a.scratch = venue.AppendString(a.scratch[:0], k)
	a.n += len(a.scratch) + 1
	if !a.count {
		a.buf = append(append(a.buf, a.scratch...), ':')
	}
}

// valueFrom reads the value at path from the rows related to it, given one
// at a time in path order: the value stored whole at the path, inside a
// value stored at an ancestor, or assembled from the values stored below.
type valueFrom struct {
	path  string
	a     assembler
	done  bool // the value was stored whole, at the path or an ancestor
	whole json.RawMessage
	found bool
}

func newValueFrom(path string) *valueFrom {
	return &valueFrom{path: path, a: assembler{buf: []byte{}}}
}

// add takes the next row, and returns errWhole once no row after it
// matters.
func (v *valueFrom) add(r ValueRow) error {
	if r.Path == v.path {
		v.done, v.whole, v.found = true, r.Value, true
		return errWhole
	}
	if rest, ok := relSegments(v.path, r.Path); ok {
		v.whole, v.found = walk(r.Value, rest)
		v.done = true
		return errWhole
	}
	segs, _ := relSegments(r.Path, v.path)
	v.a.add(segs, r.Value, r.Size)
	return nil
}

// value returns the value the rows make, and whether there is one.
func (v *valueFrom) value() (json.RawMessage, bool) {
	switch {
	case v.done:
		return v.whole, v.found
	case v.a.open == nil:
		return nil, false
	}
	return v.a.close(), true
}

// readValue reads the caller's stored namespaces (w, o, g) (see
// valueFrom). An assembled value larger than budget bytes is an
// *errTooLarge with its size.
func (e *Engine) readValue(ctx context.Context, owner string, p venue.Path, budget int) (json.RawMessage, bool, error) {
	path := p.String()
	v := newValueFrom(path)
	err := e.store.ValueRows(ctx, owner, path, false, func(r ValueRow) error {
		if err := v.add(r); err != nil || v.a.size() <= budget {
			return err
		}
		return errOver
	})
	switch {
	case errors.Is(err, errOver):
		size, err := e.assembledSize(ctx, owner, path)
		if err != nil {
			return nil, false, err
		}
		return nil, true, &errTooLarge{size: size}
	case err != nil && !errors.Is(err, errWhole):
		return nil, false, err
	}
	val, ok := v.value()
	return val, ok, nil
}

// assembledSize counts the bytes of the value assembled from the rows below
// path, reading their sizes but not their values.
func (e *Engine) assembledSize(ctx context.Context, owner, path string) (int, error) {
	a := assembler{count: true}
	err := e.store.ValueRows(ctx, owner, path, true, func(r ValueRow) error {
		if segs, ok := relSegments(r.Path, path); ok {
			a.add(segs, nil, r.Size)
		}
		return nil
	})
	return a.size(), err
}

// storedNamespace reports whether the values at p are the caller's stored
// rows (w, o, g), which list and slice stream from the store.
func storedNamespace(p venue.Path) bool {
	switch p.Namespace() {
	case venue.NSWorkspace, venue.NSPins, venue.NSAgents:
		return true
	}
	return false
}

// listStored fills res with a page of the keys of the map assembled from
// the rows below path, counting all of them, from their paths alone. It
// returns errWhole when a value is stored whole at path or an ancestor.
func (e *Engine) listStored(ctx context.Context, owner, path string, res *ListResult, limit int) error {
	last := ""
	err := e.store.ValueRows(ctx, owner, path, true, func(r ValueRow) error {
		segs, ok := relSegments(r.Path, path)
		if !ok {
			return errWhole
		}
		if res.Count > 0 && segs[0] == last {
			return nil
		}
		if last = segs[0]; res.Count >= res.Offset && res.Count < res.Offset+limit {
			res.Keys = append(res.Keys, last)
		}
		res.Count++
		return nil
	})
	if err == nil && res.Count > 0 {
		res.Exists, res.Type = true, "Map"
	}
	return err
}

// sliceStored fills res with a page of the entries of the map assembled
// from the rows below path, counting all of them; entries outside the page
// stream past unkept. A page over budget bytes is EINVALID, unless it is
// its first entry alone (up to readCap), so that paging one entry at a time
// always works. It returns errWhole, and the row, when a value is stored
// whole at path or an ancestor: the row came with its value, which the
// caller pages without loading it again.
func (e *Engine) sliceStored(ctx context.Context, owner, path string, res *SliceResult, budget int) (ValueRow, error) {
	var (
		whole ValueRow
		key   string
		a     assembler
		page  = e.pageBudget(path, res.Offset, budget)
	)
	flush := func() {
		if a.open != nil {
			v := a.close()
			page.add(key, len(v))
			res.Values = append(res.Values, entry(key, v))
		}
		a = assembler{}
	}
	err := e.store.ValueRows(ctx, owner, path, false, func(r ValueRow) error {
		segs, ok := relSegments(r.Path, path)
		if !ok {
			whole = r
			return errWhole
		}
		if res.Count == 0 || segs[0] != key {
			flush()
			key = segs[0]
			res.Count++
		}
		switch i := res.Count - 1; {
		case i >= res.Offset+res.Limit:
			return errPageDone
		case i < res.Offset:
			return nil
		}
		if len(segs) == 1 {
			// The entry's value is stored whole: an assembler with nothing
			// open to close.
			a.buf, a.n, a.open = r.Value, r.Size, segs[:0]
		} else {
			if a.buf == nil {
				a.buf = []byte{}
			}
			a.add(segs[1:], r.Value, r.Size)
		}
		return page.check(key, a.size())
	})
	if errors.Is(err, errPageDone) {
		// The rest are counted from their paths, not read.
		var l ListResult
		err = e.listStored(ctx, owner, path, &l, 0)
		res.Count = l.Count
	}
	if err != nil {
		return whole, err
	}
	flush()
	if res.Count > 0 {
		res.Exists, res.Type = true, "Map"
	}
	return whole, nil
}

// pageBudget bounds the bytes of one page of entries: a page over max is
// refused, unless it is its first entry alone (up to most), so that paging
// one entry at a time always works.
type pageBudget struct {
	path      string
	offset    int
	max, most int
	kept      int // bytes of the entries taken
	taken     int
}

func (e *Engine) pageBudget(path string, offset, max int) *pageBudget {
	return &pageBudget{path: path, offset: offset, max: max, most: e.readCap()}
}

// check refuses an entry of size bytes (so far) that would take the page
// past its bounds.
func (b *pageBudget) check(key string, size int) error {
	switch {
	case size > b.most:
		return venue.Errorf(venue.ETOOLARGE, "Entry %s of %s is over %d bytes: read its parts", key, b.path, b.most)
	case b.taken > 0 && b.kept+len(key)+size > b.max:
		return venue.Errorf(venue.EINVALID, "The page of %s from offset %d is over %d bytes: ask for fewer entries (limit)", b.path, b.offset, b.max)
	}
	return nil
}

// add counts an entry taken into the page.
func (b *pageBudget) add(key string, size int) {
	b.kept += len(key) + size
	b.taken++
}

// take checks an entry and counts it.
func (b *pageBudget) take(key string, size int) error {
	if err := b.check(key, size); err != nil {
		return err
	}
	b.add(key, size)
	return nil
}
