package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// Validate checks v against the schema. Returns a *Violation naming the
// first failing place, e.g. "value.tags.0: got number, want string", or
// another error when the schema cannot be applied to v: its $refs loop
// without consuming the value, or checking would take more than maxSteps.
func (s *Schema) Validate(v any) error {
	c := &checker{s: s, steps: maxSteps, memo: map[refKey]*Violation{}}
	bad := c.check(s.root, v, &place{})
	switch {
	case c.stop != nil:
		return c.stop
	case bad != nil:
		return bad
	}
	return nil
}

func (c *checker) check(node, v any, at *place) *Violation {
	if !c.charge(scalarCost(v)) || !c.enter() {
		return stopped
	}
	bad := c.apply(node, v, at)
	c.depth--
	return bad
}

// apply applies the schema node to v.
func (c *checker) apply(node, v any, at *place) *Violation {
	if b, ok := node.(bool); ok {
		if b {
			return nil
		}
		return violation(at, "no value is allowed here")
	}
	o := node.(*jsonv.Object) // Compile made sure
	if bad := c.checkRef(o, v, at); bad != nil {
		return bad
	}
	if bad := c.checkKind(o, v, at); bad != nil {
		return bad
	}
	if bad := c.checkValue(o, v, at); bad != nil {
		return bad
	}
	return c.checkCombined(o, v, at)
}

// checkValue applies the keywords of v's own type.
func (c *checker) checkValue(o *jsonv.Object, v any, at *place) *Violation {
	switch v := v.(type) {
	case json.Number:
		return c.checkNumber(o, v, at)
	case string:
		return c.checkString(o, v, at)
	case []any:
		return c.checkArray(o, v, at)
	case *jsonv.Object:
		return c.checkObject(o, v, at)
	}
	return nil
}

// checkRef applies the target of o's $ref, remembering the outcome for
// this place of the value: a target reached again there (through anyOf
// branches that share it, say) costs nothing, so a schema's $refs cannot
// multiply the work. Reaching it again while it is still being applied is
// a loop that would never end.
func (c *checker) checkRef(o *jsonv.Object, v any, at *place) *Violation {
	target, ok := c.s.refs[o]
	if !ok {
		return nil
	}
	if _, isBool := target.(bool); isBool {
		return c.check(target, v, at)
	}
	key := refKey{target: target, in: at.in, i: at.i}
	if r, done := c.memo[key]; done {
		if r == applying {
			ref, _ := o.Get("$ref")
			c.fail(fmt.Errorf("'schema' is not a valid JSON Schema: $ref %s leads back to itself without consuming any of the value (at %s)", short(ref), at))
			return stopped
		}
		return r
	}
	if c.hops++; c.hops > maxHops {
		ref, _ := o.Get("$ref")
		c.fail(fmt.Errorf("the schema's $refs chain more than %d deep at %s (the last: %s): too deeply to check within the venue's limits", maxHops, at, short(ref)))
		return stopped
	}
	defer func() { c.hops-- }()
	if len(c.memo) >= maxMemo {
		return c.check(target, v, at)
	}
	c.memo[key] = applying
	r := c.check(target, v, at)
	c.memo[key] = r
	return r
}

// checkPart checks an item or member of the value, where $refs followed in
// a row count from zero again.
func (c *checker) checkPart(node, v any, at *place) *Violation {
	hops := c.hops
	c.hops = 0
	bad := c.check(node, v, at)
	c.hops = hops
	return bad
}

func (c *checker) checkKind(o *jsonv.Object, v any, at *place) *Violation {
	if t, ok := o.Get("type"); ok && !hasType(t, v) {
		return violation(at, fmt.Sprintf("got %s, want %s", jsonv.Kind(v), typeList(t)))
	}
	if e, ok := o.Get("enum"); ok && !c.contains(e.([]any), v) {
		return violation(at, "must be one of "+short(e))
	}
	if k, ok := o.Get("const"); ok && !c.equal(k, v) {
		return violation(at, "must be "+short(k))
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

// numberBound is a keyword that bounds a number, and how.
type numberBound struct {
	key  string
	fail func(f, limit float64) bool
	says string
}

var numberBounds = []numberBound{
	{"minimum", func(f, l float64) bool { return f < l }, "at least"},
	{"maximum", func(f, l float64) bool { return f > l }, "at most"},
	{"exclusiveMinimum", func(f, l float64) bool { return f <= l }, "more than"},
	{"exclusiveMaximum", func(f, l float64) bool { return f >= l }, "less than"},
}

func (c *checker) checkNumber(o *jsonv.Object, v json.Number, at *place) *Violation {
	_, multiple := o.Get("multipleOf")
	if !multiple && !slices.ContainsFunc(numberBounds, func(b numberBound) bool { _, has := o.Get(b.key); return has }) {
		return nil // and spare parsing the number
	}
	f, ok := magnitude(v)
	if !ok {
		return nil
	}
	for _, b := range numberBounds {
		if l, has := o.Get(b.key); has {
			if limit, _ := number(l); b.fail(f, limit) {
				return violation(at, fmt.Sprintf("%s must be %s %s", short(v), b.says, short(l)))
			}
		}
	}
	if m, has := o.Get("multipleOf"); has {
		d, _ := number(m)
		if q := f / d; math.IsInf(q, 0) || math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
			return violation(at, fmt.Sprintf("%s is not a multiple of %s", short(v), short(m)))
		}
	}
	return nil
}

// magnitude is a number's value for its bounds: one past a double's range
// is ±Inf, so that 1e999 is still more than any maximum, and one too small
// for a double but not 0 is the smallest double of its sign, so that
// 1e-999 is still more than 0. (Equality, for enum and uniqueItems,
// compares such numbers as written instead.)
func magnitude(v json.Number) (float64, bool) {
	f, err := v.Float64()
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if mantissa, _, _ := strings.Cut(strings.ToLower(string(v)), "e"); f == 0 && strings.ContainsAny(mantissa, "123456789") {
		f = math.SmallestNonzeroFloat64
		if strings.HasPrefix(mantissa, "-") {
			f = -f
		}
	}
	return f, true
}

func (c *checker) checkString(o *jsonv.Object, str string, at *place) *Violation {
	_, hasMin := o.Get("minLength")
	_, hasMax := o.Get("maxLength")
	if hasMin || hasMax {
		if bad := bounds(o, utf8.RuneCountInString(str), "minLength", "maxLength", "characters", at); bad != nil {
			return bad
		}
	}
	if p := c.s.pattern[o]; p != nil && !c.match(p, str) {
		pat, _ := o.Get("pattern")
		return violation(at, fmt.Sprintf("%s does not match the pattern %s", short(str), short(pat)))
	}
	return nil
}

// bounds checks a count n against the keywords min and max.
func bounds(o *jsonv.Object, n int, min, max, unit string, at *place) *Violation {
	if l, ok := o.Get(min); ok {
		if limit, _ := number(l); float64(n) < limit {
			return violation(at, fmt.Sprintf("has %d %s, want at least %s", n, unit, short(l)))
		}
	}
	if l, ok := o.Get(max); ok {
		if limit, _ := number(l); float64(n) > limit {
			return violation(at, fmt.Sprintf("has %d %s, want at most %s", n, unit, short(l)))
		}
	}
	return nil
}

func (c *checker) checkArray(o *jsonv.Object, a []any, at *place) *Violation {
	if bad := bounds(o, len(a), "minItems", "maxItems", "items", at); bad != nil {
		return bad
	}
	if u, _ := o.Get("uniqueItems"); u == true {
		if i, j, dup := c.duplicate(a); dup {
			return violation(at, fmt.Sprintf("items %d and %d are equal, want unique items", i, j))
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
		if bad := c.checkPart(sub, e, at.item(a, i)); bad != nil {
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

func (c *checker) checkObject(o *jsonv.Object, obj *jsonv.Object, at *place) *Violation {
	if bad := bounds(o, obj.Len(), "minProperties", "maxProperties", "properties", at); bad != nil {
		return bad
	}
	if r, ok := o.Get("required"); ok {
		names := r.([]any)
		if !c.charge(len(names)) {
			return stopped
		}
		for _, k := range names {
			if _, has := obj.Get(k.(string)); !has {
				return violation(at, fmt.Sprintf("missing property '%s'", k))
			}
		}
	}
	for i, k := range obj.Keys() {
		val, _ := obj.Get(k)
		if bad := c.checkMember(o, k, val, at.member(obj, i, k)); bad != nil {
			return bad
		}
	}
	return nil
}

// checkMember checks member k of an object against properties,
// patternProperties and, when neither names it, additionalProperties.
func (c *checker) checkMember(o *jsonv.Object, k string, val any, at *place) *Violation {
	matched := false
	if props, ok := o.Get("properties"); ok {
		if sub, ok := props.(*jsonv.Object).Get(k); ok {
			matched = true
			if bad := c.checkPart(sub, val, at); bad != nil {
				return bad
			}
		}
	}
	if pp, ok := o.Get("patternProperties"); ok {
		pats := pp.(*jsonv.Object)
		for i, p := range pats.Keys() {
			if c.match(c.s.patProps[pats][i], k) {
				matched = true
				sub, _ := pats.Get(p)
				if bad := c.checkPart(sub, val, at); bad != nil {
					return bad
				}
			}
		}
	}
	if add, ok := o.Get("additionalProperties"); ok && !matched {
		if add == false {
			return violation(at, "property is not allowed (additionalProperties is false)")
		}
		return c.checkPart(add, val, at)
	}
	return nil
}

func (c *checker) checkCombined(o *jsonv.Object, v any, at *place) *Violation {
	if all, ok := o.Get("allOf"); ok {
		for _, sub := range all.([]any) {
			if bad := c.check(sub, v, at); bad != nil {
				return bad
			}
		}
	}
	if anyOf, ok := o.Get("anyOf"); ok {
		if n, first := c.matches(anyOf.([]any), v, at, 1); c.stop != nil {
			return stopped
		} else if n == 0 {
			return &Violation{at: at, msg: "matches no schema of anyOf", cause: first}
		}
	}
	if one, ok := o.Get("oneOf"); ok {
		switch n, first := c.matches(one.([]any), v, at, 0); {
		case c.stop != nil:
			return stopped
		case n == 0:
			return &Violation{at: at, msg: "matches no schema of oneOf", cause: first}
		case n > 1:
			return violation(at, fmt.Sprintf("matches %d schemas of oneOf, want exactly one", n))
		}
	}
	if not, ok := o.Get("not"); ok {
		if bad := c.check(not, v, at); c.stop != nil {
			return stopped
		} else if bad == nil {
			return violation(at, "must not match the schema of 'not'")
		}
	}
	return nil
}

// matches counts the schemas v satisfies, stopping at enough (0: count
// them all), and returns the first failure.
func (c *checker) matches(schemas []any, v any, at *place, enough int) (int, *Violation) {
	n := 0
	var first *Violation
	for _, sub := range schemas {
		bad := c.check(sub, v, at)
		switch {
		case c.stop != nil:
			return n, nil
		case bad == nil:
			if n++; n == enough {
				return n, nil
			}
		case first == nil:
			first = bad
		}
	}
	return n, first
}
