package secret

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/internal/jsonscan"
	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/wasm/guest"
)

func init() {
	guest.Register("secret:set", set)
}

// set stores a secret. The spec names its field "key", the reference venue
// and its SDKs "name"; both are accepted, as NAME or as the reference
// s/NAME that operations use.
func set(in json.RawMessage) (any, error) {
	var p struct {
		Name  string  `json:"name"`
		Key   string  `json:"key"`
		Value *string `json:"value"`
	}
	if err := input.Decode("secret:set", in, &p); err != nil {
		return nil, err
	}
	p.Name, p.Key = bareName(p.Name), bareName(p.Key)
	name := p.Name
	if name == "" {
		name = p.Key
	}
	switch {
	case name == "":
		return nil, guest.Errorf("'name' (or 'key') is required: the secret's name")
	case p.Name != "" && p.Key != "" && p.Name != p.Key:
		return nil, guest.Errorf("secret:set got both 'name' (%s) and 'key' (%s): give one", p.Name, p.Key)
	case p.Value == nil:
		return nil, input.Required("value")
	case strings.ContainsRune(*p.Value, utf8.RuneError) && jsonscan.LoneSurrogate(in):
		// Decoded, the half became U+FFFD: the secret stored would not be the one sent.
		return nil, guest.Errorf("'value' escapes half of a UTF-16 surrogate pair without the other half, which would store U+FFFD instead: send both halves, or the character itself")
	}
	var out json.RawMessage
	if err := guest.Call("secret.set", map[string]string{"name": name, "value": *p.Value}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// bareName returns the name a reference s/NAME (or /s/NAME) names; any
// other text comes back as it is, for the venue to judge.
func bareName(ref string) string {
	for _, prefix := range []string{"/s/", "s/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			return name
		}
	}
	return ref
}
