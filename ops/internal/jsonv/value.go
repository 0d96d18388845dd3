package jsonv

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Depth is how deeply v nests: 0 for a scalar, 1 for a container of
// scalars (or an empty one), and so on.
func Depth(v any) int {
	d := 0
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d = max(d, Depth(e))
		}
	case *Object:
		for _, e := range v.vals {
			d = max(d, Depth(e))
		}
	default:
		return 0
	}
	return d + 1
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
			b = Append(b, v.vals[i])
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
