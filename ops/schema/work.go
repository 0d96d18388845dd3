package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// A job's deadline can stop the built-in module (docs/RATIONALE.md,
// "Stopping a guest"), but a validation should not need it, so Validate
// must end by itself whatever the schema and value: its work is counted in steps, about one schema node applied
// to one part of the value, and stops with errTooComplex past maxSteps.
// Remembering what each $ref target gave at each place of the value keeps
// honest schemas far below that: their work is at most the schema's nodes
// times the value's parts. A step costs about a quarter of a microsecond
// in the guest, so maxSteps bounds a check to about half a second of one
// core (TestGuest_Hostile measures it).
const (
	maxSteps = 2_000_000
	maxMemo  = 1 << 17 // remembered $ref outcomes; each costs guest memory
	maxDepth = 25_000  // nested checks: value nesting and $ref chains together; each costs guest stack
	maxHops  = 1000    // $refs followed in a row at one place of the value
)

var errTooComplex = fmt.Errorf("schema too complex to check within the venue's limits: "+
	"checking this value took over %d steps (a step is one schema node applied to one part of the value); "+
	"simplify the schema or check a smaller value", maxSteps)

var errTooDeep = fmt.Errorf("the schema and value nest too deeply to check within the venue's limits (over %d levels)", maxDepth)

// checker is one run of Validate.
type checker struct {
	s     *Schema
	steps int                   // work left
	depth int                   // checks under way
	hops  int                   // $refs followed in a row at the current place
	memo  map[refKey]*Violation // what a $ref target gave at a place: nil (valid), a violation, or applying
	stop  error                 // why checking stopped short; every check returns stopped from then on
}

// refKey is a $ref target applied at one place of the value.
type refKey struct {
	target any // the target node
	in     any // the place's container (see place)
	i      int
}

var (
	// applying marks a $ref target being applied at a place.
	applying = &Violation{msg: "applying"}
	// stopped is what every check returns once checker.stop is set, so
	// that no keyword goes on (and none, like not or anyOf, takes it for
	// an ordinary failure).
	stopped = &Violation{msg: "stopped"}
)

// charge takes n steps, and reports whether checking may go on.
func (c *checker) charge(n int) bool {
	if c.stop != nil {
		return false
	}
	if c.steps -= n; c.steps < 0 {
		c.stop = errTooComplex
	}
	return c.stop == nil
}

func (c *checker) fail(err error) {
	if c.stop == nil {
		c.stop = err
	}
}

func (c *checker) enter() bool {
	if c.depth++; c.depth > maxDepth {
		c.fail(errTooDeep)
	}
	return c.stop == nil
}

// scalarCost is the steps that looking at v costs: a string or number is
// read whole by some keywords (minLength, pattern, multipleOf).
func scalarCost(v any) int {
	switch v := v.(type) {
	case string:
		return 1 + len(v)/64
	case json.Number:
		return 1 + len(v)/64
	}
	return 1
}

// match runs a pattern, charging for the regexp's work: at worst its
// program's size for every byte of s.
func (c *checker) match(p *pattern, s string) bool {
	if !c.charge(1 + len(s)*p.insts/1024) {
		return false
	}
	return p.re.MatchString(s)
}

func (c *checker) contains(list []any, v any) bool {
	for _, e := range list {
		if c.equal(e, v) {
			return true
		}
	}
	return false
}

// equal compares JSON values as JSON Schema does: numbers by value,
// objects regardless of member order. It charges a step for every pair of
// nodes it compares.
func (c *checker) equal(a, b any) bool {
	if !c.charge(scalarCost(a)) {
		return false
	}
	switch a := a.(type) {
	case *jsonv.Object:
		bo, ok := b.(*jsonv.Object)
		if !ok || a.Len() != bo.Len() {
			return false
		}
		for _, k := range a.Keys() {
			av, _ := a.Get(k)
			bv, ok := bo.Get(k)
			if !ok || !c.equal(av, bv) {
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
			if !c.equal(a[i], ba[i]) {
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

// duplicate finds two equal items of a, i < j with j the smallest it can
// be. Comparing every pair would take n² steps; instead each item is
// written in a canonical form that equal items share.
func (c *checker) duplicate(a []any) (i, j int, found bool) {
	seen := make(map[string]int, len(a))
	var buf []byte
	for j, e := range a {
		buf = c.canonical(buf[:0], e)
		if c.stop != nil {
			return 0, 0, false
		}
		if i, dup := seen[string(buf)]; dup {
			return i, j, true
		}
		seen[string(buf)] = j
	}
	return 0, 0, false
}

// canonical appends a form of v that another value shares exactly when
// equal(v, other): numbers by value, object members sorted by name, and a
// tag before each value so that kinds never collide.
func (c *checker) canonical(b []byte, v any) []byte {
	if !c.charge(scalarCost(v)) {
		return b
	}
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		return strconv.AppendBool(append(b, 'b'), v)
	case string:
		return jsonv.AppendString(append(b, 's'), v)
	case []any:
		b = append(b, '[')
		for _, e := range v {
			b = append(c.canonical(b, e), ',')
		}
		return append(b, ']')
	case *jsonv.Object:
		b = append(b, '{')
		for _, k := range slices.Sorted(slices.Values(v.Keys())) {
			e, _ := v.Get(k)
			b = append(c.canonical(append(jsonv.AppendString(b, k), ':'), e), ',')
		}
		return append(b, '}')
	}
	if f, ok := number(v); ok {
		if f == 0 {
			f = 0 // -0 equals 0
		}
		return strconv.AppendFloat(append(b, 'd'), f, 'g', -1, 64)
	}
	return append(append(b, 'D'), jsonv.Append(nil, v)...) // beyond float64: compared as written
}
