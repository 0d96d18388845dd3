package runtime

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// Pages of a map or vector stored whole (slice, list, count, inspect, and
// the Wasm host's lattice.list and lattice.slice, which call the same
// functions) come from an entryIndex of its text. They used to decode the
// whole value into a Go map and sort its keys on every request: 0.5 s for
// each page of a map of 250,000 entries, and 1.7 GB of memory for eight
// clients paging it. The index is built in one scan, without decoding a
// value, and answers exactly what that decoding did:
//
//   - a map's entries come in key order, bytewise on the key as
//     encoding/json decodes it: "\u0061" is "a", and invalid UTF-8 or a
//     lone surrogate (\ud800) is U+FFFD;
//   - a key given twice is one entry, with the value given last, as a Go
//     map keeps it (the venue refuses such text now; values stored before
//     may hold it);
//   - a vector's elements come in order;
//   - text that is not valid JSON fails as decoding it failed.
//
// The index holds only where each entry starts, four bytes an entry:
// reading a page rescans the page's entries alone, so that once the index
// is cached (indexcache.go) a page costs what it holds.

// entryIndex locates the entries of one map or vector in its JSON text, in
// the order pages give them.
type entryIndex struct {
	isMap bool
	at    []int32 // where each entry starts: a member's key, or an element
	twice bool    // some key is given more than once
}

// count is how many entries the value has.
func (x *entryIndex) count() int { return len(x.at) }

// member returns the key and value of the map entry i of text.
func (x *entryIndex) member(text []byte, i int) (string, json.RawMessage) {
	start := int(x.at[i])
	ke := stringEnd(text, start)
	return decodeKey(text[start:ke]), memberValueAt(text, ke)
}

// element returns the vector element i of text.
func (x *entryIndex) element(text []byte, i int) json.RawMessage {
	start := int(x.at[i])
	return text[start:valueEnd(text, start)]
}

// value returns the value of entry i: a member's value or an element.
func (x *entryIndex) value(text []byte, i int) json.RawMessage {
	if x.isMap {
		return memberValueAt(text, stringEnd(text, int(x.at[i])))
	}
	return x.element(text, i)
}

// find returns the value of the member key of the map text, as walk finds
// it, when the index can tell (known): walk takes the first member giving
// a key, the index the last, so a map giving a key twice is left to walk.
// A key that is a path segment is never one that decodes otherwise than
// walk compares it (plainKey and keyIs differ on invalid UTF-8 alone).
func (x *entryIndex) find(text []byte, key string) (value json.RawMessage, found, known bool) {
	if x == nil || !x.isMap || x.twice {
		return nil, false, false
	}
	i, found := slices.BinarySearchFunc(x.at, key, func(at int32, key string) int {
		return strings.Compare(decodeKey(text[at:stringEnd(text, int(at))]), key)
	})
	if !found {
		return nil, false, true
	}
	_, value = x.member(text, i)
	return value, true, true
}

// memberValueAt returns the value of the member whose key ends at ke.
func memberValueAt(text []byte, ke int) json.RawMessage {
	vs := memberValueStart(text, ke)
	return text[vs:valueEnd(text, vs)]
}

// memberValueStart returns where the value of the member whose key ends at
// ke starts: past the colon and the white space around it.
func memberValueStart(text []byte, ke int) int {
	return skipSpace(text, skipSpace(text, ke)+1)
}

// indexEntries indexes text, a map or a vector (see typeOf). Text that is
// not valid JSON returns the error decoding it gave, and text of 2 GiB or
// more, which no read assembles, ETOOLARGE.
func indexEntries(text []byte) (*entryIndex, error) {
	if !json.Valid(text) {
		var v any
		return nil, json.Unmarshal(text, &v) // the decoder's own syntax error
	}
	if len(text) > math.MaxInt32 {
		return nil, venue.Errorf(venue.ETOOLARGE, "A value of %d bytes is too large to page", len(text))
	}
	if typeOf(text) == "Map" {
		n := 0
		at := indexMap(text, &n)
		return &entryIndex{isMap: true, at: trimmed(at), twice: n > len(at)}, nil
	}
	return &entryIndex{at: trimmed(itemStarts(text, false))}, nil
}

// trimmed returns at without the room its appends left beyond it, which a
// kept index would hold (up to as much again) for nothing.
func trimmed(at []int32) []int32 {
	if cap(at)-len(at) > len(at)/8 {
		return slices.Clone(at)
	}
	return at
}

// itemStarts returns where each member (isMap) or element of the object or
// array text, valid JSON, starts.
func itemStarts(text []byte, isMap bool) []int32 {
	var at []int32
	i := skipSpace(text, skipSpace(text, 0)+1)
	if i >= len(text) || text[i] == '}' || text[i] == ']' {
		return nil
	}
	for more := true; more; {
		at = append(at, int32(i))
		if isMap {
			i = memberValueStart(text, stringEnd(text, i))
		}
		i, more = next(text, valueEnd(text, i))
	}
	return at
}

// sortKey is a member's key while a map is indexed: text[from:to], or
// decoded[from:to] when the key has to be decoded (see decodeKey). Its
// first eight bytes, big-endian, order most keys without looking further.
type sortKey struct {
	prefix   uint64
	from, to int32
	at       int32 // where the member starts
	decoded  bool
}

// keyPrefix is the first eight bytes of key as a big-endian number, zeros
// past its end: keys whose prefixes differ compare as their prefixes do.
func keyPrefix(key []byte) uint64 {
	var p [8]byte
	copy(p[:], key)
	return binary.BigEndian.Uint64(p[:])
}

// indexMap returns where the members of the object text start, in key
// order, the last of the members giving one key alone, and counts all
// the members in n.
func indexMap(text []byte, n *int) []int32 {
	starts := itemStarts(text, true)
	*n = len(starts)
	keys := make([]sortKey, len(starts))
	var decoded []byte
	for i, start := range starts {
		ke := stringEnd(text, int(start))
		k := sortKey{from: start + 1, to: int32(ke - 1), at: start}
		if !plainKey(text[k.from:k.to]) {
			k.from, k.decoded = int32(len(decoded)), true
			decoded = append(decoded, decodeKey(text[start:ke])...)
			k.to = int32(len(decoded))
		}
		keys[i] = k
	}
	bytesOf := func(k sortKey) []byte {
		if k.decoded {
			return decoded[k.from:k.to]
		}
		return text[k.from:k.to]
	}
	for i := range keys {
		keys[i].prefix = keyPrefix(bytesOf(keys[i]))
	}
	// Ties by position, so that the last of a key's members comes last
	// among them; members start apart, so no two compare equal.
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		if c := bytes.Compare(bytesOf(a), bytesOf(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	at := starts[:0] // sorted over the positions it held
	for i, k := range keys {
		if i+1 < len(keys) && k.prefix == keys[i+1].prefix && bytes.Equal(bytesOf(k), bytesOf(keys[i+1])) {
			continue // a later member gives this key again
		}
		at = append(at, k.at)
	}
	return at
}

// plainKey reports whether a key's text between its quotes is the key it
// decodes to: no escape, and valid UTF-8 (encoding/json makes each invalid
// byte U+FFFD).
func plainKey(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// decodeKey returns the key a quoted JSON string decodes to, as
// encoding/json decodes an object's keys.
func decodeKey(quoted []byte) string {
	if raw := quoted[1 : len(quoted)-1]; plainKey(raw) {
		return string(raw)
	}
	var s string
	json.Unmarshal(quoted, &s) // valid: the text was checked
	return s
}
