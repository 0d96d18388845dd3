package venue

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Canonicalize returns the canonical form of a JSON text, as RFC 8785 (JSON
// Canonicalization Scheme) defines it: no insignificant whitespace, object
// members sorted by their UTF-16 code units, numbers in their shortest
// ECMAScript form, strings with minimal escaping. Two texts that parse to the
// same value have the same canonical form.
// Returns EINVALID if b is not a single valid JSON value.
// Input must be I-JSON (RFC 7493), as RFC 8785 requires: an object with a
// duplicated member name is refused, since two texts that differ only in
// which duplicate wins must not share a canonical form.
func Canonicalize(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, Errorf(EINVALID, "Invalid JSON: %v", err)
	}
	if rest := b[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
		return nil, Errorf(EINVALID, "Invalid JSON: unexpected data after the value at offset %d", dec.InputOffset())
	}
	return appendCanonical(nil, v)
}

// decodeValue reads one value from the token stream, refusing duplicate
// member names.
func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if _, dup := m[key]; dup {
				return nil, fmt.Errorf("duplicate member name %q", clip(key))
			}
			if m[key], err = decodeValue(dec); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			e, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, e)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// AssetIDOf returns the id of an asset with the given metadata: the SHA-256
// of its canonical form. Formatting never changes an asset's id.
// Returns EINVALID if meta is not a JSON object.
func AssetIDOf(meta []byte) (AssetID, error) {
	c, err := Canonicalize(meta)
	if err != nil {
		return AssetID{}, err
	}
	if len(c) == 0 || c[0] != '{' {
		return AssetID{}, Errorf(EINVALID, "Asset metadata must be a JSON object")
	}
	return sha256.Sum256(c), nil
}

func appendCanonical(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case json.Number:
		return appendCanonicalNumber(b, v)
	case string:
		return appendCanonicalString(b, v), nil
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareUTF16)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonicalString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	return nil, Errorf(EINTERNAL, "canonicalize: unexpected %T", v)
}

// appendCanonicalNumber writes n as ECMAScript's Number.prototype.toString
// would: integers without exponent below 1e21, shortest round-trip digits.
func appendCanonicalNumber(b []byte, n json.Number) ([]byte, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, Errorf(EINVALID, "Invalid JSON: number %s is out of range", clip(string(n)))
	}
	if f == 0 {
		return append(b, '0'), nil
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	b = append(b, mant...)
	b = append(b, 'e', sign)
	return append(b, exp...), nil
}

// appendCanonicalString escapes only what JSON requires, as RFC 8785 asks.
func appendCanonicalString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// compareUTF16 orders strings by UTF-16 code units, as RFC 8785 sorts keys.
func compareUTF16(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ua, ub := utf16Units(ra[i]), utf16Units(rb[i])
		if c := slices.Compare(ua, ub); c != 0 {
			return c
		}
	}
	return len(ra) - len(rb)
}

func utf16Units(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r -= 0x10000
	return []uint16{uint16(0xd800 + r>>10), uint16(0xdc00 + r&0x3ff)}
}
