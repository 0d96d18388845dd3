package jsonscan

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// CaseVariant returns the first member of the object b whose name is not
// one of names but equals one of them when case is ignored ("Path" for
// "path"), and that name. encoding/json matches member names to fields
// regardless of case, the last match winning, so {"path": "w/a", "Path":
// "w/b"} passes a schema that names only "path" and then acts on "w/b":
// the venue refuses such a member rather than let it stand in for the
// real one. b must be valid JSON; CaseVariant finds nothing in anything
// but an object.
func CaseVariant(b []byte, names []string) (got, want string) {
	c := New(b)
	ok := c.Object(func(key string) bool {
		if want = variantOf(key, names); want != "" {
			got = key
			return false
		}
		return c.Value()
	})
	if got != "" || ok {
		return got, want
	}
	// A key with an escape or beyond ASCII, which Key declines, or no
	// object at all: encoding/json reads the names.
	for _, k := range memberNames(b) {
		if want = variantOf(k, names); want != "" {
			return k, want
		}
	}
	return "", ""
}

// variantOf returns the name key stands in for, or "" if key is one of
// names or like none of them.
func variantOf(key string, names []string) string {
	if slices.Contains(names, key) {
		return ""
	}
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return n
		}
	}
	return ""
}

// CaseTwins returns two members of the object b whose names differ only
// in letter case ("sha256" and "SHA256"), as encoding/json folds it: a
// struct field reads whichever comes last, so one of them stands in for
// the other unseen. b must be valid JSON; anything but an object has none.
func CaseTwins(b []byte) (string, string) {
	keys := memberNames(b)
	seen := make(map[string]string, len(keys))
	for _, k := range keys {
		f := foldKey(k)
		if other, ok := seen[f]; ok {
			return other, k
		}
		seen[f] = k
	}
	return "", ""
}

// foldKey maps every rune of s to the least rune it folds to, so that two
// names equal under strings.EqualFold get the same key.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// memberNames returns the member names of the object b as encoding/json
// decodes them, sorted; none if b is no object.
func memberNames(b []byte) []string {
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return nil
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
