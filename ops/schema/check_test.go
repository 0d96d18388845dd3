package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/ops/opstest"
)

// The guest tests (ops/guest_families_test.go, ops/hostile_test.go) run
// schema:validate in the built module; these pin the checker natively.

func mustParse(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %.100s: %v", s, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, schema, value string
		want                string // the violation, or "" for valid
	}{
		{"uniqueItems: numbers by value", `{"uniqueItems":true}`, `[1,2,1.0]`, "value: items 0 and 2 are equal, want unique items"},
		{"uniqueItems: -0 is 0", `{"uniqueItems":true}`, `[0,-0]`, "value: items 0 and 1 are equal, want unique items"},
		{"uniqueItems: objects in any order", `{"uniqueItems":true}`, `[{"a":1,"b":[2]},{"b":[2.0],"a":1}]`, "value: items 0 and 1 are equal, want unique items"},
		{"uniqueItems: kinds differ", `{"uniqueItems":true}`, `["1",1,[1],{"1":1},true,null,"true","null"]`, ""},
		{"uniqueItems: arrays in order", `{"uniqueItems":true}`, `[[1,2],[2,1]]`, ""},
		{"uniqueItems: beyond float64, as written", `{"uniqueItems":true}`, `[1e400,1E400,1e400]`, "value: items 0 and 2 are equal, want unique items"},
		{"a number past a double's range is past a maximum", `{"type":"number","maximum":10}`, `1e999`, "value: 1e999 must be at most 10"},
		{"and below a minimum when negative", `{"minimum":-10}`, `-1E400`, "value: -1E400 must be at least -10"},
		{"and within no bound", `{"minimum":0}`, `1e999`, ""},
		{"and a multiple of nothing", `{"multipleOf":2}`, `1e999`, "value: 1e999 is not a multiple of 2"},
		{"a number too small for a double is not 0", `{"exclusiveMinimum":0}`, `1e-999`, ""},
		{"nor when negative", `{"exclusiveMaximum":0}`, `-1e-999`, ""},
		{"nor past the bound of its sign", `{"minimum":0}`, `-1e-999`, "value: -1e-999 must be at least 0"},
		{"a zero written small is 0", `{"exclusiveMinimum":0}`, `0.0e-999`, "value: 0.0e-999 must be more than 0"},
		{"the audit's doubling $refs", opstest.DoublingRefs(40), `1`, "value: matches no schema of anyOf (the first says: value: matches no schema of anyOf"},
		{"the audit's doubling $refs, valid", opstest.DoublingRefs(40), `"s"`, ""},
		{"a recursive schema over a deep value", `{"items":{"$ref":"#"},"type":"array"}`, `[[[[1]]]]`, "value.0.0.0.0: got integer, want array"},
		{"a chain of 1000 $refs", refChain(1000), `1`, ""},
		{"a chain of 1000 $refs at every level of the value", `{"items":{"$ref":"#"},"anyOf":[{"type":"array"},{"$ref":"#/$defs/a0"}],"$defs":` + chainDefs(999) + `}`, `[[[1]]]`, ""},
		{"anyOf stops at a match", `{"anyOf":[{"type":"integer"},{"$ref":"#"}]}`, `1`, ""},
		{"oneOf counts every match", `{"oneOf":[{},{"type":"integer"},{"minimum":0}]}`, `1`, "value: matches 3 schemas of oneOf, want exactly one"},
		{"a long message is cut", `{"const":"x"}`, `"` + strings.Repeat("y", 100) + `"`, `value: must be "x"`},
		{"a pattern in patternProperties", `{"patternProperties":{"^a":{"type":"string"}}}`, `{"ab":1,"b":2}`, "value.ab: got integer, want string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile(mustParse(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(mustParse(t, tc.value))
			var bad *Violation
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate = %v, want valid", err)
			case tc.want != "" && (!errors.As(err, &bad) || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("Validate = %v, want a violation starting %q", err, tc.want)
			}
		})
	}
}

func TestValidate_Stops(t *testing.T) {
	for _, tc := range []struct {
		name, schema, value string
		want                string
	}{
		{"a $ref to itself", `{"$ref":"#"}`, `1`, `$ref "#" leads back to itself without consuming any of the value (at value)`},
		{"a loop under not is no pass", `{"$defs":{"x":{"anyOf":[false,{"$ref":"#/$defs/x"}]}},"not":{"$ref":"#/$defs/x"}}`, `1`, "leads back to itself"},
		{"a loop deeper in the value", `{"items":{"$ref":"#/$defs/x"},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/x"}]}}}`, `[1]`, "(at value.0)"},
		{"a chain of 1001 $refs", refChain(1001), `1`, "the schema's $refs chain more than 1000 deep at value"},
		{"too many steps", `{"items":{"allOf":[` + strings.Repeat(`{},`, 3000) + `{}]}}`, `[` + strings.Repeat(`1,`, 1000) + `1]`, "schema too complex to check within the venue's limits"},
		{"too many steps under anyOf", `{"anyOf":[{"items":{"allOf":[` + strings.Repeat(`{},`, 3000) + `{}]}},true]}`, `[` + strings.Repeat(`1,`, 1000) + `1]`, "schema too complex"},
		{"a long pattern over a long string", `{"allOf":[` + strings.Repeat(`{"pattern":"a{1000}"},`, 9) + `{"pattern":"a{1000}"}]}`, `"` + strings.Repeat("a", 1<<20) + `"`, "schema too complex"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile(mustParse(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(mustParse(t, tc.value))
			var bad *Violation
			if err == nil || errors.As(err, &bad) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want it to stop with %q", err, tc.want)
			}
		})
	}
}

// TestValidate_Steps pins that remembering $ref outcomes makes honest
// schemas cheap: the audit's schema costs a step or so per $def.
func TestValidate_Steps(t *testing.T) {
	s, err := Compile(mustParse(t, opstest.DoublingRefs(60)))
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{s: s, steps: maxSteps, memo: map[refKey]*Violation{}}
	c.check(s.root, mustParse(t, `1`), &place{})
	if used := maxSteps - c.steps; c.stop != nil || used > 1000 {
		t.Errorf("checking took %d steps (stop: %v), want a few per level", used, c.stop)
	}
}

func TestCompile_Refuses(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"a $ref to an array", `{"required":["a"],"$ref":"#/required"}`, `$ref "#/required" does not point to a schema`},
		{"a $ref to a string", `{"type":"string","$ref":"#/type"}`, `does not point to a schema`},
		{"a $ref to a bad schema outside the walk", `{"x":{"type":"text"},"$ref":"#/x"}`, `"text" is not a JSON Schema type`},
		{"an anchor", `{"$ref":"#foo"}`, `only JSON pointers`},
		{"patterns too large", `{"anyOf":[` + distinctPatterns(101) + `true]}`, "the schema's patterns are too large"},
		{"a deep place is named", `{"properties":{"a/b":{"items":{"minimum":"x"}}}}`, `#/properties/a~1b/items/minimum: must be a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(mustParse(t, tc.schema))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Compile = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCompile_SharesPatterns(t *testing.T) {
	s, err := Compile(mustParse(t, `{"anyOf":[`+strings.Repeat(`{"pattern":"a{1000}"},`, 500)+`true]}`))
	if err != nil {
		t.Fatalf("500 copies of one pattern: %v", err)
	}
	if s.insts > 1100 {
		t.Errorf("%d instructions compiled, want one pattern's", s.insts)
	}
}

// distinctPatterns is n schemas whose patterns compile to 1000
// instructions each, all different.
func distinctPatterns(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"pattern":"a{1000}%d"},`, i)
	}
	return b.String()
}

// refChain is a schema whose $defs a0 … an-1 each $ref the next: n $refs
// in a row with the root's.
func refChain(n int) string { return `{"$ref":"#/$defs/a0","$defs":` + chainDefs(n) + `}` }

func chainDefs(n int) string {
	var b strings.Builder
	b.WriteString(`{`)
	for i := range n - 1 {
		fmt.Fprintf(&b, `"a%d":{"$ref":"#/$defs/a%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"a%d":{"type":"integer"}}`, n-1)
	return b.String()
}
