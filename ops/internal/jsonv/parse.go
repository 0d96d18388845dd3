package jsonv

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is how deeply JSON may nest: encoding/json's limit, which the
// host and the engine apply to every output, so an operation can neither
// take nor give more.
const MaxDepth = 10000

// Parse decodes exactly one JSON value, nested at most MaxDepth deep.
//
// It is a parser of its own: json.Decoder's Token, which keeps member
// order too, allocates for every token and took seconds for a 2 MB input
// in the guest, which has no termination checks.
func Parse(b []byte) (any, error) {
	p := &parser{b: b}
	v, err := p.value(0)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if p.space(); p.i < len(b) {
		return nil, errors.New("invalid JSON: data after the value")
	}
	return v, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("unexpected end of input, want %s", what)
	}
	return fmt.Errorf("unexpected %q at offset %d, want %s", p.b[p.i], p.i, what)
}

func (p *parser) value(depth int) (any, error) {
	p.space()
	if p.i >= len(p.b) {
		return nil, p.fail("a value")
	}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		if depth == MaxDepth {
			return nil, fmt.Errorf("it nests more than %d levels deep", MaxDepth)
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		return p.string()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, p.fail("a value")
}

func (p *parser) object(depth int) (any, error) {
	o := NewObject()
	p.i++ // {
	if p.space(); p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return o, nil
	}
	for {
		if p.space(); p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.fail("a member name")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if p.space(); p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.fail("':'")
		}
		p.i++
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		o.Set(k, v)
		if done, err := p.next('}'); done || err != nil {
			return o, err
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	a := []any{}
	p.i++ // [
	if p.space(); p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if done, err := p.next(']'); done || err != nil {
			return a, err
		}
	}
}

// next reads the ',' between members or the close that ends them.
func (p *parser) next(close byte) (done bool, err error) {
	p.space()
	switch {
	case p.i < len(p.b) && p.b[p.i] == ',':
		p.i++
		return false, nil
	case p.i < len(p.b) && p.b[p.i] == close:
		p.i++
		return true, nil
	}
	return true, p.fail("',' or '" + string(close) + "'")
}

// string reads a string. One without escapes is taken as it is; one with
// them (rare) is unquoted by encoding/json, which knows every escape and
// surrogate pair. Invalid UTF-8 becomes U+FFFD either way, as
// encoding/json does.
func (p *parser) string() (string, error) {
	start := p.i
	p.i++ // "
	plain := true
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.unquote(p.b[start:p.i], plain)
		case c == '\\':
			plain = false
			p.i++ // skip the escaped byte; encoding/json checks the escape
		case c < 0x20:
			return "", p.fail("no control character in a string")
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return "", p.fail("the string's closing '\"'")
}

func (p *parser) unquote(quoted []byte, plain bool) (string, error) {
	if plain {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	if !hasEscape(quoted) && utf8.Valid(quoted) {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", fmt.Errorf("string at offset %d: %v", p.i-len(quoted), err)
	}
	return s, nil
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// number reads a number as JSON writes it: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
func (p *parser) number() (json.Number, error) {
	start := p.i
	if p.peek('-') {
		p.i++
	}
	switch {
	case p.peek('0'):
		p.i++
	case p.digits() == 0:
		return "", p.fail("a digit")
	}
	if p.peek('.') {
		p.i++
		if p.digits() == 0 {
			return "", p.fail("a digit after '.'")
		}
	}
	if p.peek('e') || p.peek('E') {
		p.i++
		if p.peek('+') || p.peek('-') {
			p.i++
		}
		if p.digits() == 0 {
			return "", p.fail("a digit in the exponent")
		}
	}
	return json.Number(p.b[start:p.i]), nil
}

func (p *parser) peek(c byte) bool { return p.i < len(p.b) && p.b[p.i] == c }

func (p *parser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}
