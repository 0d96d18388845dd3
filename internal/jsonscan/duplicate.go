package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// Duplicate reports the first member name that occurs twice in one object
// anywhere in b, compared as decoded ("a" and "\u0061" are one name).
// RFC 8259 leaves such text to each reader (encoding/json keeps the last,
// a reader of the text as stored may keep the first), and I-JSON (RFC
// 7493) refuses it. b must be one valid JSON value; ok is false if it is
// not.
func Duplicate(b []byte) (name string, found, ok bool) {
	d := dups{c: Cursor{b: b}}
	d.c.Space()
	if !d.value(0) {
		return d.name, d.found, d.found
	}
	d.c.Space()
	return "", false, d.c.AtEnd()
}

// dups walks a value, stopping at the first repeated name.
type dups struct {
	c     Cursor
	name  string
	found bool
}

func (d *dups) value(depth int) bool {
	ch, ok := d.c.Peek()
	switch {
	case !ok || depth > MaxNesting:
		return false
	case ch == '{':
		return d.object(depth + 1)
	case ch == '[':
		return d.array(depth + 1)
	}
	return d.c.value(0) // a scalar: no nesting below it
}

func (d *dups) object(depth int) bool {
	c := &d.c
	empty, _ := c.Open('{', '}')
	var names names
	for more := !empty; more; {
		c.Space()
		start := c.i
		if !c.anyString() {
			return false
		}
		name, ok := decodedName(c.b[start:c.i])
		if !ok {
			return false
		}
		if !names.add(name) {
			d.name, d.found = string(name), true
			return false
		}
		c.Space()
		if !c.Eat(':') {
			return false
		}
		c.Space()
		if !d.value(depth) {
			return false
		}
		if more, ok = c.Next('}'); !ok {
			return false
		}
	}
	return true
}

func (d *dups) array(depth int) bool {
	c := &d.c
	empty, _ := c.Open('[', ']')
	for more := !empty; more; {
		c.Space()
		if !d.value(depth) {
			return false
		}
		var ok bool
		if more, ok = c.Next(']'); !ok {
			return false
		}
	}
	return true
}

// decodedName returns the name a quoted member name decodes to: its bytes
// as they are when they hold no escape and are ASCII, else as encoding/json
// decodes them (escapes resolved, invalid UTF-8 as U+FFFD).
func decodedName(quoted []byte) ([]byte, bool) {
	raw := quoted[1 : len(quoted)-1]
	for _, ch := range raw {
		if ch == '\\' || ch >= utf8.RuneSelf {
			var s string
			if json.Unmarshal(quoted, &s) != nil {
				return nil, false
			}
			return []byte(s), true
		}
	}
	return raw, true
}

// names holds the names of one object: in an array while there are few,
// as in most objects, so that reading them allocates nothing, in a map
// past that.
type names struct {
	few [8][]byte
	n   int
	set map[string]struct{}
}

// add records name and reports false if it was there already.
func (s *names) add(name []byte) bool {
	if s.set == nil {
		for _, n := range s.few[:s.n] {
			if string(n) == string(name) {
				return false
			}
		}
		if s.n < len(s.few) {
			s.few[s.n], s.n = name, s.n+1
			return true
		}
		s.set = make(map[string]struct{}, 2*len(s.few))
		for _, n := range s.few {
			s.set[string(n)] = struct{}{}
		}
	}
	if _, dup := s.set[string(name)]; dup {
		return false
	}
	s.set[string(name)] = struct{}{}
	return true
}
