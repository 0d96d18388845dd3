package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// Hidden replaces a secret wherever a job record would show it.
const Hidden = "HIDDEN"

// masker remembers the plaintext secrets a job resolved and blanks them out
// of its records and of everything the host hands back to its guest. A
// value is known in every form it takes on the way out of the venue
// (maskforms.go): as it is, escaped for each part of a URL (see escapeURL),
// escaped in JSON and HTML as common encoders do, so that a server echoing
// a request line or a header returns nothing the masker misses. Only values of at least minMasked bytes are masked: a
// one-letter "secret" would blank every occurrence of that letter, which is
// why shorter values cannot be stored or resolved (tooShort).
type masker struct {
	mu     sync.Mutex
	inText []string // the forms to blank in plain text, longest first
}

const minMasked = 4

func (m *masker) add(v string) {
	if len(v) < minMasked {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range secretForms(v) {
		m.inText = insertForm(m.inText, f)
		for _, once := range jsonForms(f) {
			for _, twice := range append(jsonEscapes(once), once) {
				m.inText = insertForm(m.inText, twice)
			}
		}
	}
}

// insertForm returns forms with f added, kept longest first so that a form
// is never cut up by masking a shorter one inside it first. The result is
// a new slice: text and apply read the old one without the lock.
func insertForm(forms []string, f string) []string {
	if slices.Contains(forms, f) {
		return forms
	}
	i, _ := slices.BinarySearchFunc(forms, f, func(a, b string) int { return len(b) - len(a) })
	return slices.Insert(slices.Clip(forms), i, f)
}

// text masks the values in s.
func (m *masker) text(s string) string {
	m.mu.Lock()
	forms := m.inText
	m.mu.Unlock()
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, Hidden)
	}
	return s
}

// mayHold is a cheap check before masking JSON: a secret can only be in
// b if one of its forms is, or behind an escape.
func (m *masker) mayHold(b []byte) bool {
	m.mu.Lock()
	forms := m.inText
	m.mu.Unlock()
	return len(forms) > 0 && (bytes.IndexByte(b, '\\') >= 0 || slices.ContainsFunc(forms, func(f string) bool { return bytes.Contains(b, []byte(f)) }))
}

// apply masks j's output, error and message in place.
func (m *masker) apply(j *venue.Job) {
	j.Error = m.text(j.Error)
	j.Output = m.json(j.Output)
	j.Message = m.json(j.Message)
}

// json masks the JSON text b without changing its structure, since the
// record must stay JSON: a secret is replaced only inside a string (a
// member name or a value, read with its escapes undone, so a value JSON
// written into a string is caught too), and a number or literal holding
// one becomes the string "HIDDEN". A form spanning several tokens ("200,"
// after a status) is structure, not the secret, and stays. Text that is
// not JSON is masked as text.
func (m *masker) json(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !m.mayHold(b) {
		return b
	}
	if !json.Valid(b) {
		return json.RawMessage(m.text(string(b)))
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		start := i
		switch c := b[i]; {
		case c == '"':
			i = stringEnd(b, i)
		case jsonDelim(c):
			i++
			continue
		default:
			for i < len(b) && b[i] != '"' && !jsonDelim(b[i]) {
				i++
			}
		}
		if masked, ok := m.jsonToken(b[start:i]); ok {
			out = append(append(out, b[last:start]...), masked...)
			last = i
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// jsonToken masks one token of a JSON text: a string or a number or
// literal. It reports false if nothing in it changed.
func (m *masker) jsonToken(tok []byte) ([]byte, bool) {
	if tok[0] != '"' {
		if m.text(string(tok)) == string(tok) {
			return nil, false
		}
		return venue.AppendString(nil, Hidden), true
	}
	s := string(tok[1 : len(tok)-1])
	if bytes.IndexByte(tok, '\\') >= 0 {
		json.Unmarshal(tok, &s)
	}
	masked := m.text(s)
	if masked == s {
		return nil, false
	}
	return venue.AppendString(nil, masked), true
}

// jsonDelim reports whether c is JSON punctuation or white space.
func jsonDelim(c byte) bool { return strings.IndexByte("{}[]:, \t\r\n", c) >= 0 }

// maskFields returns input with every object member whose key is listed in
// fields replaced by "HIDDEN", at any depth. Inputs that are not JSON
// objects or arrays, or that name no such field, come back unchanged.
func maskFields(input json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 || len(input) == 0 || (input[0] != '{' && input[0] != '[') || !mentionsAny(input, fields) {
		return input
	}
	// Numbers stay as written: a float64 would round integers past 2^53.
	var v any
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return input
	}
	if !hideKeys(v, fields) {
		return input
	}
	out, _ := json.Marshal(v)
	return out
}

// mentionsAny is a cheap pre-check: a field can only be present if its
// name appears in the text as a quoted string, in any letter case (Go's
// JSON decoding, which operations use, matches names so). Names that need
// escaping in JSON, and any text holding an escape (which may spell a
// name, as "secr\u0065t" does) or a byte beyond ASCII (a letter that
// folds to an ASCII one in other bytes: the Kelvin sign is k, "ſ" is s),
// are treated as present.
func mentionsAny(b []byte, fields []string) bool {
	if bytes.IndexByte(b, '\\') >= 0 || bytes.ContainsFunc(b, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return true
	}
	for _, f := range fields {
		if containsFold(b, venue.AppendString(nil, f)) || strings.ContainsAny(f, "\\\"<>&") {
			return true
		}
	}
	return false
}

// containsFold reports whether sub, a quoted name, is within b without
// regard to case. Only a quote in b can begin it.
func containsFold(b, sub []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], sub[0])
		if j < 0 || i+j+len(sub) > len(b) {
			return false
		}
		if i += j; bytes.EqualFold(b[i:i+len(sub)], sub) {
			return true
		}
	}
}

func hideKeys(v any, fields []string) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			if slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
				v[k], changed = Hidden, true
			} else if hideKeys(val, fields) {
				changed = true
			}
		}
	case []any:
		for _, e := range v {
			if hideKeys(e, fields) {
				changed = true
			}
		}
	}
	return changed
}
