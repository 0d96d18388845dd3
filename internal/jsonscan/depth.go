package jsonscan

// MaxNesting is encoding/json's bound on how deep a value may nest: text
// nested deeper is refused as invalid although the grammar allows it.
const MaxNesting = 10000

// TooDeep reports whether the brackets of b, outside its strings, nest
// deeper than MaxNesting: what to tell of text that encoding/json refuses,
// when that is why.
func TooDeep(b []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > MaxNesting {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}
