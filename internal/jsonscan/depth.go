package jsonscan

// MaxNesting is encoding/json's bound on how deep a value may nest: text
// nested deeper is refused as invalid although the grammar allows it.
const MaxNesting = 10000

// Deeper reports whether the brackets of b, outside its strings, nest
// deeper than limit. It reads b as JSON text without checking it.
func Deeper(b []byte, limit int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}
