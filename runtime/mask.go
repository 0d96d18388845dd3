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
// a request line or a header returns nothing the masker misses. Only values
// of at least minMasked bytes are masked: a one-letter "secret" would blank
// every occurrence of that letter, which is why shorter values cannot be
// stored or resolved (tooShort).
//
// Every encoder the masker knows writes a value character by character, so
// it keeps the forms of each character (unitForms), not of each value: a
// text holds a value if it holds, in a row, one form of each of its
// characters (maskmatch.go). Listing each value's forms whole took ~850
// strings up to 6 times its size, 110 MB for a 64 KiB value; the forms of
// the characters are shared by all values and bounded (maxUnitBytes).
type masker struct {
	mu     sync.Mutex
	values []*maskValue
	// ascii holds the forms of each ASCII character of the values, made
	// with the first: most jobs mask nothing, and the table is 3 KB.
	ascii     *[utf8.RuneSelf][]string
	units     map[string][]string // the forms of each other character
	unitBytes int                 // the size of both, at most maxUnitBytes
	spent     int                 // the size of all forms worked out, at most maxSpent
	// floorSpent is how much of the job's matchFloor masking took.
	floorSpent int
	// lower holds the first lowered values, lower-cased, for lowerText.
	lower   *masker
	lowered int
}

const minMasked = 4

// maxUnitBytes bounds the forms a job's masker keeps. The forms of all ASCII
// characters take 11 KB, of one beyond ASCII under 1 KB, so only
// values holding thousands of different characters outgrow it; such a value
// is still masked, by blanking all of any text that may hold it (see
// maskValue.blind).
const maxUnitBytes = 1 << 20

// maxSpent bounds the forms a job's masker works out, including those of
// values that outgrew maxUnitBytes and were dropped: naming many such
// values costs no more than a few.
const maxSpent = 4 * maxUnitBytes

// add adds v, and v without the white space around it: net/http trims a
// header value it sends and one it reads, so a value ending in a space
// comes back without it.
func (m *masker) add(v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.addValue(v)
	if t := strings.TrimSpace(v); t != v {
		m.addValue(t)
	}
}

func (m *masker) addValue(v string) {
	if len(v) < minMasked {
		return
	}
	if slices.ContainsFunc(m.values, func(mv *maskValue) bool { return mv.v == v }) {
		return
	}
	mv := newMaskValue(v)
	if mv.blind = !m.learnUnits(v); mv.blind && mv.anchor == "" {
		_, n := utf8.DecodeRuneInString(v)
		mv.minLen, mv.first = utf8.RuneCountInString(v), unitForms(v[:n])
	}
	m.values = append(m.values, mv)
}

// learnUnits adds the forms of v's characters to the masker's, as read
// forwards and backwards (invalid UTF-8 is read a byte at a time either
// way). If they would outgrow maxUnitBytes it adds none and reports false:
// one value beyond the budget leaves it to the others.
func (m *masker) learnUnits(v string) bool {
	var added []string
	size := m.unitBytes
	for i, j := 0, len(v); i < len(v); {
		_, n := utf8.DecodeRuneInString(v[i:])
		_, back := utf8.DecodeLastRuneInString(v[:j])
		for _, u := range []string{v[i : i+n], v[j-back : j]} {
			if m.forms(u) != nil {
				continue
			}
			var forms []string
			if m.spent <= maxSpent {
				forms = unitForms(u)
			}
			for _, f := range forms {
				size += len(f) + 16
				m.spent += len(f) + 16
			}
			if forms == nil || size > maxUnitBytes {
				for _, u := range added {
					m.setForms(u, nil)
				}
				return false
			}
			m.setForms(u, forms)
			added = append(added, u)
		}
		i, j = i+n, j-back
	}
	m.unitBytes = size
	return true
}

// setForms sets (or with nil, forgets) the forms of u, one character.
func (m *masker) setForms(u string, forms []string) {
	if len(u) == 1 && u[0] < utf8.RuneSelf {
		if m.ascii == nil {
			m.ascii = new([utf8.RuneSelf][]string)
		}
		m.ascii[u[0]] = forms
		return
	}
	if m.units == nil {
		m.units = make(map[string][]string)
	}
	if forms == nil {
		delete(m.units, u)
		return
	}
	m.units[u] = forms
}

// forms returns the forms of u, one character, or nil if unknown.
func (m *masker) forms(u string) []string {
	if len(u) == 1 && u[0] < utf8.RuneSelf {
		if m.ascii == nil {
			return nil
		}
		return m.ascii[u[0]]
	}
	return m.units[u]
}

// text masks the values in s.
func (m *masker) text(s string) string {
	if s == "" {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	start := m.matchBudget(len(s))
	budget := start
	defer func() { m.spend(len(s), start, budget) }()
	return m.hide(s, m.values, &budget)
}

// lowerText masks the values in s and lower-cases it, as the guest sees a
// header name. Go's reader has already changed the case of the name's
// letters (Sk-Live-Abcdef for sk-Live-AbCdEf), so the values are looked for
// in any case: as they are in s, then lower-cased in what shows of it
// lower-cased.
func (m *masker) lowerText(s string) string {
	lower := m.lowerValues()
	parts := strings.Split(m.text(s), Hidden)
	for i, p := range parts {
		parts[i] = lower.text(strings.ToLower(p))
	}
	return strings.Join(parts, Hidden)
}

// lowerValues returns a masker of the values lower-cased, adding those
// added since it was last asked for.
func (m *masker) lowerValues() *masker {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lower == nil {
		m.lower = &masker{}
	}
	m.lower.mu.Lock()
	defer m.lower.mu.Unlock()
	for _, mv := range m.values[m.lowered:] {
		m.lower.addValue(strings.ToLower(mv.v))
	}
	m.lowered = len(m.values)
	return m.lower
}

// present lists the values that b may hold: those whose anchor it holds
// (every form of a value holds its anchor), and all of them if b writes a
// character as a \u escape (which may spell a letter of the anchor).
func (m *masker) present(b []byte) []*maskValue {
	if bytes.Contains(b, []byte(`\u`)) {
		return m.values
	}
	var out []*maskValue
	for _, mv := range m.values {
		if bytes.Contains(b, []byte(mv.anchor)) {
			out = append(out, mv)
		}
	}
	return out
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
	if len(b) == 0 {
		return b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	vals := m.present(b)
	if len(vals) == 0 {
		return b
	}
	start := m.matchBudget(len(b))
	budget := start
	defer func() { m.spend(len(b), start, budget) }()
	if !json.Valid(b) {
		return json.RawMessage(m.hide(string(b), vals, &budget))
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
		if masked, ok := m.jsonToken(b[start:i], vals, &budget); ok {
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
func (m *masker) jsonToken(tok []byte, vals []*maskValue, budget *int) ([]byte, bool) {
	if tok[0] != '"' {
		if m.hide(string(tok), vals, budget) == string(tok) {
			return nil, false
		}
		return venue.AppendString(nil, Hidden), true
	}
	s := string(tok[1 : len(tok)-1])
	if bytes.IndexByte(tok, '\\') >= 0 {
		json.Unmarshal(tok, &s)
	}
	masked := m.hide(s, vals, budget)
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

// holdsFields reports whether input holds any of fields, which maskFields
// would hide: the record of such input lacks what was given.
func holdsFields(input json.RawMessage, fields []string) bool {
	if len(fields) == 0 || len(input) == 0 || (input[0] != '{' && input[0] != '[') || !mentionsAny(input, fields) {
		return false
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return true // what cannot be read may hold anything
	}
	return hideKeys(v, fields)
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
