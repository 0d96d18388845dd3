package schema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// Schema is a compiled JSON Schema, ready to validate values against.
//
// It supports the keywords of draft 2020-12 that constrain plain JSON data:
// type, enum, const; minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf; minLength, maxLength, pattern; items, prefixItems (and the
// older array form of items with additionalItems), minItems, maxItems,
// uniqueItems; properties, required, additionalProperties,
// patternProperties, minProperties, maxProperties; allOf, anyOf, oneOf,
// not; $ref to a place inside the schema ("#", "#/$defs/x"); boolean
// schemas. Annotations (title, description, default, format, ...) are
// ignored, as 2020-12 does by default. Conditional and evaluation-tracking
// keywords (if/then/else, contains, dependentRequired, propertyNames,
// unevaluated*, ...) are refused when compiling rather than ignored, so
// that an unsupported schema never reports a value valid by accident.
// Patterns are Go regular expressions (RE2), which lack lookaround and
// backreferences.
type Schema struct {
	root     any
	patterns map[string]*regexp.Regexp
}

// unsupported are validation keywords Compile refuses.
var unsupported = map[string]bool{
	"if": true, "then": true, "else": true, "contains": true, "minContains": true, "maxContains": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true, "propertyNames": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "$dynamicRef": true, "$recursiveRef": true,
}

var typeNames = map[string]bool{
	"null": true, "boolean": true, "integer": true, "number": true, "string": true, "array": true, "object": true,
}

// Compile checks that doc is a schema Validate can apply.
// The error names the first place that is not.
func Compile(doc any) (*Schema, error) {
	s := &Schema{root: doc, patterns: map[string]*regexp.Regexp{}}
	if err := s.compile(doc, "#"); err != nil {
		return nil, fmt.Errorf("'schema' is not a valid JSON Schema: %v", err)
	}
	return s, nil
}

// compile checks the schema node found at the JSON pointer at.
func (s *Schema) compile(node any, at string) error {
	if _, ok := node.(bool); ok {
		return nil
	}
	o, ok := node.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("%s: a schema must be an object or a boolean, got %s", at, jsonv.Kind(node))
	}
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		if err := s.keyword(k, v, at+"/"+k); err != nil {
			return err
		}
	}
	return nil
}

// keyword checks the value v of keyword k.
func (s *Schema) keyword(k string, v any, at string) error {
	switch k {
	case "type":
		return checkType(v, at)
	case "properties", "$defs", "definitions":
		return s.schemaMap(v, at, false)
	case "patternProperties":
		return s.schemaMap(v, at, true)
	case "additionalProperties", "additionalItems", "not":
		return s.compile(v, at)
	case "items":
		if _, ok := v.([]any); ok {
			return s.schemaList(v, at)
		}
		return s.compile(v, at)
	case "prefixItems", "allOf", "anyOf", "oneOf":
		return s.schemaList(v, at)
	case "required":
		return checkStrings(v, at)
	case "enum":
		if _, ok := v.([]any); !ok {
			return fmt.Errorf("%s: must be an array", at)
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return checkNumber(v, at, k == "multipleOf")
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		return checkCount(v, at)
	case "uniqueItems":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: must be a boolean", at)
		}
	case "pattern":
		return s.pattern(v, at)
	case "$ref":
		ref, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string", at)
		}
		_, err := s.resolve(ref)
		return err
	default:
		if unsupported[k] {
			return fmt.Errorf("%s: keyword '%s' is not supported by schema:validate", at, k)
		}
	}
	return nil
}

func checkType(v any, at string) error {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, n := range names {
		if name, ok := n.(string); !ok || !typeNames[name] {
			return fmt.Errorf("%s: %s is not a JSON Schema type", at, jsonv.Append(nil, n))
		}
	}
	return nil
}

func checkStrings(v any, at string) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: must be an array of strings", at)
	}
	for _, e := range list {
		if _, ok := e.(string); !ok {
			return fmt.Errorf("%s: must be an array of strings", at)
		}
	}
	return nil
}

func checkNumber(v any, at string, positive bool) error {
	n, ok := number(v)
	switch {
	case !ok:
		return fmt.Errorf("%s: must be a number", at)
	case positive && n <= 0:
		return fmt.Errorf("%s: must be a number above 0", at)
	}
	return nil
}

func checkCount(v any, at string) error {
	n, ok := number(v)
	if !ok || n < 0 || n != float64(int(n)) {
		return fmt.Errorf("%s: must be a non-negative integer", at)
	}
	return nil
}

func (s *Schema) schemaMap(v any, at string, patterns bool) error {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("%s: must be an object of schemas", at)
	}
	for _, k := range o.Keys() {
		if patterns {
			if err := s.pattern(k, at); err != nil {
				return err
			}
		}
		e, _ := o.Get(k)
		if err := s.compile(e, at+"/"+escapePointer(k)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) schemaList(v any, at string) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("%s: must be a non-empty array of schemas", at)
	}
	for i, e := range list {
		if err := s.compile(e, at+"/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) pattern(v any, at string) error {
	p, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: must be a string", at)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return fmt.Errorf("%s: pattern %q is not a regular expression Go accepts: %v", at, p, err)
	}
	s.patterns[p] = re
	return nil
}

// resolve finds the schema a $ref names: a JSON pointer into this schema.
func (s *Schema) resolve(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q: only references inside the schema (\"#/...\") are supported", ref)
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %v", ref, err)
	}
	node := s.root
	for _, tok := range strings.Split(frag, "/")[1:] {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if node, ok = child(node, tok); !ok {
			return nil, fmt.Errorf("$ref %q: nothing there", ref)
		}
	}
	return node, nil
}

func child(node any, tok string) (any, bool) {
	switch n := node.(type) {
	case *jsonv.Object:
		return n.Get(tok)
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n) {
			return nil, false
		}
		return n[i], true
	}
	return nil, false
}

func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// number returns a JSON number's value.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
