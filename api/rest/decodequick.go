package rest

import (
	"encoding/json"
	"strconv"
)

// quickInvoke decodes the invoke bodies clients send, plain ones, in one
// pass and without reflection: encoding/json's Decoder scans a body twice
// and was a twentieth of an echo invoke's cost. It decodes only what it
// can decode exactly as decodeInvoke's encoding/json path would, and says
// false for everything else, valid or not (escapes in a field's string,
// keys in another case, a repeated key, deep nesting, any error), which
// the slow path then decodes or words. FuzzQuickInvoke holds the two to
// the same answers.
func quickInvoke(b []byte) (invocation, bool) {
	s := scan{b: b}
	s.space()
	if !s.eat('{') {
		return invocation{}, false
	}
	var inv invocation
	var seen [5]bool
	s.space()
	if s.eat('}') {
		return invocation{}, false // operation is missing: the slow path says so
	}
	for {
		s.space()
		key, ok := s.plainString()
		if !ok {
			return invocation{}, false
		}
		s.space()
		if !s.eat(':') {
			return invocation{}, false
		}
		s.space()
		field := -1
		switch key {
		case "operation":
			field = 0
			inv.Operation, ok = s.plainString()
			ok = ok && inv.Operation != ""
		case "input":
			field = 1
			start := s.i
			ok = s.value(0)
			inv.Input = json.RawMessage(b[start:s.i])
		case "wait":
			field = 2
			inv.Wait, ok = s.wait()
		case "ucans":
			field = 3
			inv.UCANs, ok = s.strings()
		case "private":
			field = 4
			_, ok = s.boolean()
		}
		if field < 0 || !ok || seen[field] {
			return invocation{}, false
		}
		seen[field] = true
		s.space()
		if s.eat('}') {
			break
		}
		if !s.eat(',') {
			return invocation{}, false
		}
	}
	s.space()
	if s.i != len(b) || !seen[0] {
		return invocation{}, false
	}
	return inv, true
}

// scan is a cursor over a JSON text.
type scan struct {
	b []byte
	i int
}

// maxQuickDepth bounds the nesting quickInvoke checks by recursion; deeper
// input goes to encoding/json, whose own bound is far higher.
const maxQuickDepth = 64

func (s *scan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scan) lit(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// plainString reads a string of printable ASCII without escapes, which
// decodes to exactly its bytes.
func (s *scan) plainString() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			str := string(s.b[start:s.i])
			s.i++
			return str, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

func (s *scan) boolean() (bool, bool) {
	switch {
	case s.lit("true"):
		return true, true
	case s.lit("false"):
		return false, true
	}
	return false, false
}

// wait reads wait as encoding/json decodes it into an interface: a bool,
// a float64 or a string (other kinds are left to the slow path).
func (s *scan) wait() (any, bool) {
	if s.i >= len(s.b) {
		return nil, false
	}
	switch c := s.b[s.i]; {
	case c == 't' || c == 'f':
		return s.boolean()
	case c == '"':
		return s.plainString()
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.i
		if !s.number() {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
		return f, err == nil
	}
	return nil, false
}

// strings reads an array of plain strings.
func (s *scan) strings() ([]string, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []string{}
	s.space()
	if s.eat(']') {
		return out, true
	}
	for {
		s.space()
		str, ok := s.plainString()
		if !ok {
			return nil, false
		}
		out = append(out, str)
		s.space()
		if s.eat(']') {
			return out, true
		}
		if !s.eat(',') {
			return nil, false
		}
	}
}

// value checks one JSON value of any kind and moves past it.
func (s *scan) value(depth int) bool {
	if s.i >= len(s.b) || depth > maxQuickDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		return s.anyString()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	}
	return false
}

func (s *scan) object(depth int) bool {
	s.i++ // '{'
	s.space()
	if s.eat('}') {
		return true
	}
	for {
		s.space()
		if !s.anyString() {
			return false
		}
		s.space()
		if !s.eat(':') {
			return false
		}
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *scan) array(depth int) bool {
	s.i++ // '['
	s.space()
	if s.eat(']') {
		return true
	}
	for {
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// anyString checks a string as encoding/json's scanner does: any byte from
// 0x20 up but for the quote and the backslash, which starts one of JSON's
// escapes.
func (s *scan) anyString() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if s.i >= len(s.b) || !isHex(s.b[s.i]) {
						return false
					}
					s.i++
				}
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number checks a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scan) number() bool {
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.digit():
		for s.digit() {
		}
	default:
		return false
	}
	if s.eat('.') {
		if !s.digit() {
			return false
		}
		for s.digit() {
		}
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digit() {
			return false
		}
		for s.digit() {
		}
	}
	return true
}

func (s *scan) digit() bool {
	if s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		return true
	}
	return false
}
