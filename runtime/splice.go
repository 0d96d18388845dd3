package runtime

import (
	"bytes"
	"encoding/json"
)

// A value written below a stored value is spliced into the stored text:
// decoding the document and encoding it again would change what the edit
// does not touch (member order, white space, numbers and escapes as
// written, a key holding a lone surrogate, which decodes to U+FFFD), and
// grow it. These functions read valid JSON text, as every stored value
// is, and keep no recursion of their own, so the depth of a document costs
// them nothing.

// isSpace reports whether c is JSON's insignificant white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first byte at or after i that is not
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value that begins at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
		case '{', '[':
			depth++
			continue
		case '}', ']':
			if depth == 0 {
				return i // the end of a number or literal, and of its container
			}
			depth--
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			continue
		default:
			continue
		}
		if depth == 0 {
			return i + 1
		}
	}
	return len(b)
}

// next returns where the member or element after the one ending at end
// begins, or false at the container's end.
func next(doc []byte, end int) (int, bool) {
	k := skipSpace(doc, end)
	if k >= len(doc) || doc[k] != ',' {
		return 0, false
	}
	return skipSpace(doc, k+1), true
}

// memberValue finds the member key of the object doc: where the member
// starts (its key's quote) and where its value starts and ends.
func memberValue(doc []byte, key string) (start, vs, ve int, ok bool) {
	for i := skipSpace(doc, skipSpace(doc, 0)+1); i < len(doc) && doc[i] == '"'; {
		ke := stringEnd(doc, i)
		vs = skipSpace(doc, skipSpace(doc, ke)+1) // past the colon
		ve = valueEnd(doc, vs)
		if keyIs(doc[i:ke], key) {
			return i, vs, ve, true
		}
		if i, ok = next(doc, ve); !ok {
			break
		}
	}
	return 0, 0, 0, false
}

// keyIs reports whether the quoted key lit, as JSON text, says key.
func keyIs(lit []byte, key string) bool {
	if bytes.IndexByte(lit, '\\') < 0 {
		return len(lit) >= 2 && string(lit[1:len(lit)-1]) == key
	}
	var s string
	return json.Unmarshal(lit, &s) == nil && s == key
}

// element finds element index of the array doc, and reports how many
// elements it has when index is past them.
func element(doc []byte, index int) (start, end, count int, ok bool) {
	i := skipSpace(doc, skipSpace(doc, 0)+1)
	if i >= len(doc) || doc[i] == ']' {
		return 0, 0, 0, false
	}
	for more := true; more; i, more = next(doc, end) {
		start, end = i, valueEnd(doc, i)
		if count == index {
			return start, end, 0, true
		}
		count++
	}
	return 0, 0, count, false
}

// elementCount is how many elements the array doc has.
func elementCount(doc []byte) int {
	_, _, n, _ := element(doc, -1)
	return n
}

// splice returns doc with its bytes from start to end replaced by with.
func splice(doc []byte, start, end int, with []byte) json.RawMessage {
	out := make([]byte, 0, len(doc)-(end-start)+len(with))
	return append(append(append(out, doc[:start]...), with...), doc[end:]...)
}

// cut returns doc without the member or element from start to end, and
// the comma that joined it to the others.
func cut(doc []byte, start, end int) json.RawMessage {
	if k := skipSpace(doc, end); k < len(doc) && doc[k] == ',' {
		return splice(doc, start, skipSpace(doc, k+1), nil)
	}
	k := start - 1
	for k > 0 && isSpace(doc[k]) {
		k--
	}
	if k > 0 && doc[k] == ',' {
		start = k
	}
	return splice(doc, start, end, nil)
}

// closing is the index of the bracket that closes the object or array doc.
func closing(doc []byte) int {
	k := len(doc) - 1
	for k > 0 && isSpace(doc[k]) {
		k--
	}
	return k
}

// withMember returns the object doc (or nothing) with the member key: v
// added at its end.
func withMember(doc []byte, key string, v []byte) json.RawMessage {
	m := append(append(appendKey(nil, key), ':'), v...)
	if len(doc) == 0 {
		return append(append([]byte{'{'}, m...), '}')
	}
	return with(doc, m)
}

// withElement returns the array doc (or nothing) with v added at its end.
func withElement(doc []byte, v []byte) json.RawMessage {
	if len(doc) == 0 {
		return append(append([]byte{'['}, v...), ']')
	}
	return with(doc, v)
}

// with adds item (a member or an element) at the end of the object or
// array doc.
func with(doc, item []byte) json.RawMessage {
	c := closing(doc)
	if skipSpace(doc, skipSpace(doc, 0)+1) == c { // empty
		return splice(doc, c, c, item)
	}
	return splice(doc, c, c, append([]byte{','}, item...))
}

// appendKey writes key as a JSON string, escaping only what JSON requires:
// it comes from a path, which is UTF-8 text.
func appendKey(b []byte, key string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
