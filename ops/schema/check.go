package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// maxRefDepth bounds how many $refs one validation may follow in a row, so
// that a schema referring to itself without consuming the value ends.
const maxRefDepth = 64

// Violation is the first place a value breaks its schema.
type Violation struct {
	At  string // where in the value: "value", "value.tags.0"
	Msg string // what is wrong there
}

func (v *Violation) Error() string { return v.At + ": " + v.Msg }

// Validate checks v against the schema. Returns a *Violation naming the
// first failing place, e.g. "value.tags.0: got number, want string".
func (s *Schema) Validate(v any) error {
	if bad := s.check(s.root, v, "value", 0); bad != nil {
		return bad
	}
	return nil
}

func (s *Schema) check(node, v any, at string, refs int) *Violation {
	if b, ok := node.(bool); ok {
		if b {
			return nil
		}
		return &Violation{at, "no value is allowed here"}
	}
	o := node.(*jsonv.Object) // Compile made sure
	if bad := s.checkRef(o, v, at, refs); bad != nil {
		return bad
	}
	if bad := s.checkKind(o, v, at); bad != nil {
		return bad
	}
	if bad := s.checkNumber(o, v, at); bad != nil {
		return bad
	}
	if bad := s.checkString(o, v, at); bad != nil {
		return bad
	}
	if bad := s.checkArray(o, v, at, refs); bad != nil {
		return bad
	}
	if bad := s.checkObject(o, v, at, refs); bad != nil {
		return bad
	}
	return s.checkCombined(o, v, at, refs)
}

func (s *Schema) checkRef(o *jsonv.Object, v any, at string, refs int) *Violation {
	ref, ok := o.Get("$ref")
	if !ok {
		return nil
	}
	if refs >= maxRefDepth {
		return &Violation{at, "schema $refs nest too deeply"}
	}
	target, _ := s.resolve(ref.(string)) // Compile resolved it once
	return s.check(target, v, at, refs+1)
}

func (s *Schema) checkKind(o *jsonv.Object, v any, at string) *Violation {
	if t, ok := o.Get("type"); ok && !hasType(t, v) {
		return &Violation{at, fmt.Sprintf("got %s, want %s", jsonv.Kind(v), typeList(t))}
	}
	if e, ok := o.Get("enum"); ok && !contains(e.([]any), v) {
		return &Violation{at, "must be one of " + short(e)}
	}
	if c, ok := o.Get("const"); ok && !equal(c, v) {
		return &Violation{at, "must be " + short(c)}
	}
	return nil
}

// hasType reports whether v is of type t (a name or a list of names); an
// integer is a number, and a number with no fraction is an integer.
func hasType(t, v any) bool {
	names, ok := t.([]any)
	if !ok {
		names = []any{t}
	}
	kind := jsonv.Kind(v)
	for _, n := range names {
		switch {
		case n == kind, n == "number" && kind == "integer":
			return true
		case n == "integer" && kind == "number":
			if f, _ := number(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
				return true
			}
		}
	}
	return false
}

func typeList(t any) string {
	names, ok := t.([]any)
	if !ok {
		return t.(string)
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n.(string)
	}
	return strings.Join(parts, " or ")
}

func (s *Schema) checkNumber(o *jsonv.Object, v any, at string) *Violation {
	f, ok := number(v)
	if !ok {
		return nil
	}
	for _, b := range []struct {
		key  string
		fail func(f, limit float64) bool
		says string
	}{
		{"minimum", func(f, l float64) bool { return f < l }, "at least"},
		{"maximum", func(f, l float64) bool { return f > l }, "at most"},
		{"exclusiveMinimum", func(f, l float64) bool { return f <= l }, "more than"},
		{"exclusiveMaximum", func(f, l float64) bool { return f >= l }, "less than"},
	} {
		if l, ok := o.Get(b.key); ok {
			if limit, _ := number(l); b.fail(f, limit) {
				return &Violation{at, fmt.Sprintf("%s must be %s %s", jsonv.Append(nil, v), b.says, jsonv.Append(nil, l))}
			}
		}
	}
	if m, ok := o.Get("multipleOf"); ok {
		d, _ := number(m)
		if q := f / d; math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			return &Violation{at, fmt.Sprintf("%s is not a multiple of %s", jsonv.Append(nil, v), jsonv.Append(nil, m))}
		}
	}
	return nil
}

func (s *Schema) checkString(o *jsonv.Object, v any, at string) *Violation {
	str, ok := v.(string)
	if !ok {
		return nil
	}
	n := utf8.RuneCountInString(str)
	if bad := bounds(o, n, "minLength", "maxLength", "characters", at); bad != nil {
		return bad
	}
	if p, ok := o.Get("pattern"); ok && !s.patterns[p.(string)].MatchString(str) {
		return &Violation{at, fmt.Sprintf("%s does not match the pattern %s", short(str), short(p))}
	}
	return nil
}

// bounds checks a count n against the keywords min and max.
func bounds(o *jsonv.Object, n int, min, max, unit, at string) *Violation {
	if l, ok := o.Get(min); ok {
		if limit, _ := number(l); float64(n) < limit {
			return &Violation{at, fmt.Sprintf("has %d %s, want at least %s", n, unit, jsonv.Append(nil, l))}
		}
	}
	if l, ok := o.Get(max); ok {
		if limit, _ := number(l); float64(n) > limit {
			return &Violation{at, fmt.Sprintf("has %d %s, want at most %s", n, unit, jsonv.Append(nil, l))}
		}
	}
	return nil
}

func (s *Schema) checkArray(o *jsonv.Object, v any, at string, refs int) *Violation {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	if bad := bounds(o, len(a), "minItems", "maxItems", "items", at); bad != nil {
		return bad
	}
	if u, _ := o.Get("uniqueItems"); u == true {
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if equal(a[i], a[j]) {
					return &Violation{at, fmt.Sprintf("items %d and %d are equal, want unique items", i, j)}
				}
			}
		}
	}
	prefix, rest := itemSchemas(o)
	for i, e := range a {
		sub := rest
		if i < len(prefix) {
			sub = prefix[i]
		}
		if sub == nil {
			continue
		}
		if bad := s.check(sub, e, at+"."+strconv.Itoa(i), refs); bad != nil {
			return bad
		}
	}
	return nil
}

// itemSchemas returns the schemas of an array's leading items and of the
// rest: prefixItems and items (2020-12), or an items array and
// additionalItems (earlier drafts).
func itemSchemas(o *jsonv.Object) (prefix []any, rest any) {
	items, _ := o.Get("items")
	if tuple, ok := items.([]any); ok {
		rest, _ = o.Get("additionalItems")
		return tuple, rest
	}
	p, _ := o.Get("prefixItems")
	prefix, _ = p.([]any)
	return prefix, items
}

func (s *Schema) checkObject(o *jsonv.Object, v any, at string, refs int) *Violation {
	obj, ok := v.(*jsonv.Object)
	if !ok {
		return nil
	}
	if bad := bounds(o, obj.Len(), "minProperties", "maxProperties", "properties", at); bad != nil {
		return bad
	}
	if r, ok := o.Get("required"); ok {
		for _, k := range r.([]any) {
			if _, has := obj.Get(k.(string)); !has {
				return &Violation{at, fmt.Sprintf("missing property '%s'", k)}
			}
		}
	}
	for _, k := range obj.Keys() {
		val, _ := obj.Get(k)
		if bad := s.checkMember(o, k, val, at+"."+k, refs); bad != nil {
			return bad
		}
	}
	return nil
}

// checkMember checks member k of an object against properties,
// patternProperties and, when neither names it, additionalProperties.
func (s *Schema) checkMember(o *jsonv.Object, k string, val any, at string, refs int) *Violation {
	matched := false
	if props, ok := o.Get("properties"); ok {
		if sub, ok := props.(*jsonv.Object).Get(k); ok {
			matched = true
			if bad := s.check(sub, val, at, refs); bad != nil {
				return bad
			}
		}
	}
	if pp, ok := o.Get("patternProperties"); ok {
		pats := pp.(*jsonv.Object)
		for _, p := range pats.Keys() {
			if s.patterns[p].MatchString(k) {
				matched = true
				sub, _ := pats.Get(p)
				if bad := s.check(sub, val, at, refs); bad != nil {
					return bad
				}
			}
		}
	}
	if add, ok := o.Get("additionalProperties"); ok && !matched {
		if add == false {
			return &Violation{at, "property is not allowed (additionalProperties is false)"}
		}
		return s.check(add, val, at, refs)
	}
	return nil
}

func (s *Schema) checkCombined(o *jsonv.Object, v any, at string, refs int) *Violation {
	if all, ok := o.Get("allOf"); ok {
		for _, sub := range all.([]any) {
			if bad := s.check(sub, v, at, refs); bad != nil {
				return bad
			}
		}
	}
	if anyOf, ok := o.Get("anyOf"); ok {
		if n, first := s.matches(anyOf.([]any), v, at, refs); n == 0 {
			return &Violation{at, "matches no schema of anyOf (the first says: " + first.Error() + ")"}
		}
	}
	if one, ok := o.Get("oneOf"); ok {
		switch n, first := s.matches(one.([]any), v, at, refs); {
		case n == 0:
			return &Violation{at, "matches no schema of oneOf (the first says: " + first.Error() + ")"}
		case n > 1:
			return &Violation{at, fmt.Sprintf("matches %d schemas of oneOf, want exactly one", n)}
		}
	}
	if not, ok := o.Get("not"); ok && s.check(not, v, at, refs) == nil {
		return &Violation{at, "must not match the schema of 'not'"}
	}
	return nil
}

// matches counts the schemas v satisfies, and returns the first failure.
func (s *Schema) matches(schemas []any, v any, at string, refs int) (int, *Violation) {
	n := 0
	var first *Violation
	for _, sub := range schemas {
		bad := s.check(sub, v, at, refs)
		if bad == nil {
			n++
		} else if first == nil {
			first = bad
		}
	}
	return n, first
}

func contains(list []any, v any) bool {
	for _, e := range list {
		if equal(e, v) {
			return true
		}
	}
	return false
}

// equal compares JSON values as JSON Schema does: numbers by value,
// objects regardless of member order.
func equal(a, b any) bool {
	switch a := a.(type) {
	case *jsonv.Object:
		bo, ok := b.(*jsonv.Object)
		if !ok || a.Len() != bo.Len() {
			return false
		}
		for _, k := range a.Keys() {
			av, _ := a.Get(k)
			bv, ok := bo.Get(k)
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !equal(a[i], ba[i]) {
				return false
			}
		}
		return true
	}
	fa, aNum := number(a)
	fb, bNum := number(b)
	if aNum || bNum {
		return aNum && bNum && fa == fb
	}
	return a == b
}

// short is a value's JSON, cut for an error message.
func short(v any) string {
	b := jsonv.Append(nil, v)
	if len(b) > 80 {
		return string(b[:77]) + "…"
	}
	return string(b)
}
