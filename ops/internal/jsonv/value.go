package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object that remembers the order of its members.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Keys returns the member names in order. The caller must not modify it.
func (o *Object) Keys() []string { return o.keys }

// Len returns the number of members.
func (o *Object) Len() int { return len(o.keys) }

// Get returns the member k.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Set sets member k to v, appending k if it is new; a repeated key keeps
// its first place and takes the last value, as encoding/json does.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// MarshalJSON encodes the members in order.
func (o *Object) MarshalJSON() ([]byte, error) { return Append(nil, o), nil }

// Parse decodes exactly one JSON value.
func Parse(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the value")
	}
	return v, nil
}

func decode(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	switch tok {
	case json.Delim('{'):
		o := NewObject()
		for dec.More() {
			k, _ := dec.Token() // the decoder guarantees a string key here
			v, err := decode(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k.(string), v)
		}
		_, err = dec.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decode(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token()
		return a, err
	}
	return tok, nil
}

// Append appends the compact JSON encoding of v to b. Values that are not
// of the package's kinds are encoded by encoding/json.
func Append(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return AppendString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = Append(b, e)
		}
		return append(b, ']')
	case *Object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(AppendString(b, k), ':')
			b = Append(b, v.vals[k])
		}
		return append(b, '}')
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, enc...)
}

// AppendString appends s as a JSON string, escaping only what JSON needs.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r) // invalid bytes become U+FFFD
			i += n
			continue
		}
		i++
	}
	return append(b, '"')
}
