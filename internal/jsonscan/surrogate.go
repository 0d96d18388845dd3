package jsonscan

import "strconv"

// LoneSurrogate reports whether the JSON text b escapes half of a UTF-16
// surrogate pair without the other half ("\ud800", or "\udc00" alone).
// encoding/json decodes such an escape as U+FFFD: a value that must reach
// its use unchanged (a secret) would silently be another. b is taken to be
// valid JSON, where a backslash only ever starts an escape in a string.
func LoneSurrogate(b []byte) bool {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		r, ok := escaped(b, i)
		i++ // the escape's letter; \uXXXX's digits are not backslashes
		switch {
		case !ok || r < 0xd800 || r > 0xdfff:
		case r >= 0xdc00:
			return true // a low half with no high half before it
		default:
			low, ok := escaped(b, i+5)
			if !ok || low < 0xdc00 || low > 0xdfff {
				return true
			}
			i += 6
		}
	}
	return false
}

// escaped returns the code unit of a \uXXXX escape at b[i].
func escaped(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}
