package runtime

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	venue "github.com/gridvenue/venue"
)

// inputNames are the member names an input schema gives its objects: under
// "properties" at each level, and for the elements of an array under
// "items". Operations decode their input with encoding/json, which takes a
// member for a field whatever its case, the last one winning: so
// {"with": "w/a", "With": "w/b"} passes a schema that names only "with"
// and the operation acts on "w/b" while the record shows "w/a". The engine
// refuses a member that names one of these but for case, at any depth the
// schema describes.
type inputNames struct {
	props map[string]*inputNames // a nil value: nothing known below
	items *inputNames
}

// namesOf reads the names schema doc gives; nil if it gives none.
func namesOf(doc json.RawMessage) *inputNames {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(doc, &s) != nil {
		return nil
	}
	n := &inputNames{items: namesOf(s.Items)}
	if len(s.Properties) > 0 {
		n.props = make(map[string]*inputNames, len(s.Properties))
		for name, sub := range s.Properties {
			n.props[name] = namesOf(sub)
		}
	}
	if n.props == nil && n.items == nil {
		return nil
	}
	return n
}

// merge returns the names of both.
func (n *inputNames) merge(o *inputNames) *inputNames {
	switch {
	case n == nil:
		return o
	case o == nil:
		return n
	}
	m := &inputNames{items: n.items.merge(o.items), props: maps.Clone(n.props)}
	for name, sub := range o.props {
		if m.props == nil {
			m.props = map[string]*inputNames{}
		}
		m.props[name] = m.props[name].merge(sub)
	}
	return m
}

// refuseVariants answers EINVALID for the first member of v (decoded
// JSON) that names one of n's but for case; at is v's place, "input".
func (n *inputNames) refuseVariants(v any, at string) error {
	if n == nil {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		for _, key := range slices.Sorted(maps.Keys(v)) {
			sub, known := n.props[key]
			if !known {
				if want := n.variantOf(key); want != "" {
					where := ""
					if at != "input" {
						where = " in " + at
					}
					return venue.Errorf(venue.EINVALID, "Input gives the member %q%s, which this operation does not take: member names are case-sensitive; did you mean %q?", clipRef(key), clipRef(where), want)
				}
				continue
			}
			if err := sub.refuseVariants(v[key], at+"."+key); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := n.items.refuseVariants(e, at+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// variantOf returns the property key stands in for but for case, or "".
func (n *inputNames) variantOf(key string) string {
	for _, name := range slices.Sorted(maps.Keys(n.props)) {
		if strings.EqualFold(key, name) {
			return name
		}
	}
	return ""
}
