package venue

import "strings"

// ValidDID reports whether s has the syntax of a DID (DID Core §3.1):
// "did:", a method name of lowercase letters and digits, ":", and a
// method-specific id of letters, digits, '.', '-', '_' and %XX escapes in
// ':'-separated parts, the last not empty.
func ValidDID(s string) bool {
	rest, ok := strings.CutPrefix(s, "did:")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ':' {
		return false
	}
	id := rest[i+1:]
	if id == "" || id[len(id)-1] == ':' {
		return false
	}
	for j := 0; j < len(id); j++ {
		switch c := id[j]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_', c == ':':
		case c == '%' && j+2 < len(id) && isHex(id[j+1]) && isHex(id[j+2]):
			j += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
