package schema

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// Violation is the first place a value breaks its schema.
type Violation struct {
	at    *place
	msg   string     // what is wrong there
	cause *Violation // for anyOf and oneOf: what the first branch said
}

// maxMessage bounds a violation's text: nested anyOfs would otherwise
// quote each other at length.
const maxMessage = 2000

// Error says where and what, e.g. "value.tags.0: got number, want string".
func (v *Violation) Error() string {
	var b strings.Builder
	v.write(&b)
	if b.Len() <= maxMessage {
		return b.String()
	}
	return cut(b.String(), maxMessage-len("…")) + "…"
}

func (v *Violation) write(b *strings.Builder) {
	b.WriteString(v.at.String() + ": " + v.msg)
	if v.cause != nil && b.Len() < maxMessage {
		b.WriteString(" (the first says: ")
		v.cause.write(b)
		b.WriteString(")")
	}
}

func violation(at *place, msg string) *Violation { return &Violation{at: at, msg: msg} }

// place is where a part of the value sits, named only when a violation is
// written: naming every place as checking reaches it would cost the
// value's depth at each of its parts.
type place struct {
	up  *place
	in  any    // the container holding the part: its *jsonv.Object, or the address of its array's first item; nil at the root
	i   int    // the part's index in the container (for an object, in key order)
	key string // its member name, in an object
}

func (p *place) item(a []any, i int) *place { return &place{up: p, in: &a[0], i: i} }

func (p *place) member(o *jsonv.Object, i int, k string) *place {
	return &place{up: p, in: o, i: i, key: k}
}

func (p *place) String() string {
	var segs []string
	for ; p.up != nil; p = p.up {
		if _, ok := p.in.(*jsonv.Object); ok {
			segs = append(segs, p.key)
		} else {
			segs = append(segs, strconv.Itoa(p.i))
		}
	}
	var b strings.Builder
	b.WriteString("value")
	for i := len(segs) - 1; i >= 0; i-- {
		b.WriteString("." + segs[i])
	}
	return b.String()
}

// short is a value's JSON, cut for an error message. It writes no more of
// a large value than the message keeps.
func short(v any) string {
	const limit = 80
	b := appendUpTo(nil, v, limit)
	if len(b) > limit {
		return cut(string(b), limit-len("…")) + "…"
	}
	return string(b)
}

// appendUpTo appends v's JSON, stopping soon after b passes limit bytes.
func appendUpTo(b []byte, v any, limit int) []byte {
	switch v := v.(type) {
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendUpTo(b, e, limit)
		}
		return append(b, ']')
	case *jsonv.Object:
		b = append(b, '{')
		for i, k := range v.Keys() {
			if len(b) > limit {
				return b
			}
			if i > 0 {
				b = append(b, ',')
			}
			e, _ := v.Get(k)
			b = appendUpTo(append(appendUpTo(b, k, limit), ':'), e, limit)
		}
		return append(b, '}')
	case string:
		return jsonv.AppendString(b, cut(v, limit+1))
	case json.Number:
		return append(b, cut(string(v), limit+1)...)
	}
	return jsonv.Append(b, v)
}

// cut returns at most n bytes of s, cut at a rune boundary.
func cut(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
