package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	venue "github.com/gridvenue/venue"
)

// Hidden replaces a secret wherever a job record would show it.
const Hidden = "HIDDEN"

// masker remembers the plaintext secrets a job resolved and blanks them out
// of its records. Only values of at least minMasked bytes are masked: a
// one-letter "secret" would blank every occurrence of that letter.
type masker struct {
	mu     sync.Mutex
	values []string
}

const minMasked = 4

func (m *masker) add(v string) {
	if len(v) < minMasked {
		return
	}
	m.mu.Lock()
	m.values = append(m.values, v)
	m.mu.Unlock()
}

// text masks the values in s.
func (m *masker) text(s string) string {
	m.mu.Lock()
	vals := m.values
	m.mu.Unlock()
	for _, v := range vals {
		s = strings.ReplaceAll(s, v, Hidden)
	}
	return s
}

// apply masks j's output, error and message in place.
func (m *masker) apply(j *venue.Job) {
	m.mu.Lock()
	vals := m.values
	m.mu.Unlock()
	for _, v := range vals {
		j.Error = strings.ReplaceAll(j.Error, v, Hidden)
		j.Output = maskJSON(j.Output, v)
		j.Message = maskJSON(j.Message, v)
	}
}

// maskJSON replaces v inside the JSON text b. A secret can only appear in b
// inside a string, JSON-escaped; swapping the escaped form for HIDDEN keeps
// the text valid.
func maskJSON(b json.RawMessage, v string) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	enc := venue.AppendString(nil, v)
	esc := enc[1 : len(enc)-1]
	if !bytes.Contains(b, esc) {
		return b
	}
	return bytes.ReplaceAll(b, esc, []byte(Hidden))
}

// maskFields returns input with every object member whose key is listed in
// fields replaced by "HIDDEN", at any depth. Inputs that are not JSON
// objects or arrays, or that name no such field, come back unchanged.
func maskFields(input json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 || len(input) == 0 || (input[0] != '{' && input[0] != '[') || !mentionsAny(input, fields) {
		return input
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return input
	}
	if !hideKeys(v, fields) {
		return input
	}
	out, _ := json.Marshal(v)
	return out
}

// mentionsAny is a cheap pre-check: a field can only be present if its
// name appears in the text as a quoted string. Names that need escaping
// in JSON are treated as present.
func mentionsAny(b []byte, fields []string) bool {
	for _, f := range fields {
		enc := venue.AppendString(nil, f)
		if bytes.Contains(b, enc) || strings.ContainsAny(f, "\\\"<>&") {
			return true
		}
	}
	return false
}

func hideKeys(v any, fields []string) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			if slices.Contains(fields, k) {
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
