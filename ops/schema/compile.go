package schema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"regexp/syntax"
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
	compiled map[*jsonv.Object]bool       // the nodes checked as schemas: every node Validate can reach
	refs     map[*jsonv.Object]any        // the target of each node's $ref
	pattern  map[*jsonv.Object]*pattern   // each node's pattern
	patProps map[*jsonv.Object][]*pattern // the patterns of a patternProperties object, in its key order
	byText   map[string]*pattern          // the patterns compiled so far, by their text
	insts    int                          // regexp instructions of all patterns together
	targets  []target                     // $ref targets still to compile
}

// target is a $ref's target, compiled after the walk that found it rather
// than from inside it: a chain of $refs compiled recursively would nest as
// deep as it is long.
type target struct {
	node any
	ref  string
	at   *pointer
}

// pattern is a compiled regular expression and the size of its program,
// which is what a match costs per byte of input.
type pattern struct {
	re    *regexp.Regexp
	insts int
}

// maxPatternInsts bounds the regexp programs of one schema together. Go's
// regexp matches in time linear in the input, but the factor is the
// program's size, which a short pattern can make large (a{1000} is 1000
// instructions), and each instruction costs guest memory.
const maxPatternInsts = 100_000

// unsupported are validation keywords Compile refuses.
var unsupported = map[string]bool{
	"if": true, "then": true, "else": true, "contains": true, "minContains": true, "maxContains": true,
	"dependentRequired": true, "dependentSchemas": true, "dependencies": true, "propertyNames": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "$dynamicRef": true, "$recursiveRef": true,
}

var typeNames = map[string]bool{
	"null": true, "boolean": true, "integer": true, "number": true, "string": true, "array": true, "object": true,
}

// Compile checks that doc is a schema Validate can apply: every node
// Validate may reach, $ref targets included. It visits each node once, so
// its work is linear in the schema's size (patterns aside, which are
// bounded by maxPatternInsts). The error names the first place that is
// not a schema.
func Compile(doc any) (*Schema, error) {
	s := &Schema{root: doc, compiled: map[*jsonv.Object]bool{}, refs: map[*jsonv.Object]any{},
		pattern: map[*jsonv.Object]*pattern{}, patProps: map[*jsonv.Object][]*pattern{}, byText: map[string]*pattern{}}
	err := s.compile(doc, nil)
	for len(s.targets) > 0 && err == nil {
		t := s.targets[len(s.targets)-1]
		s.targets = s.targets[:len(s.targets)-1]
		if err = s.compile(t.node, t.at); err != nil {
			err = fmt.Errorf("$ref %s does not point to a schema: %v", short(t.ref), err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("'schema' is not a valid JSON Schema: %v", err)
	}
	return s, nil
}

// pointer is the JSON pointer of a place in the schema, built only when an
// error names it: building every node's pointer would cost the schema's
// depth at every node.
type pointer struct {
	up  *pointer
	tok string
}

func (p *pointer) with(tok string) *pointer { return &pointer{p, tok} }

func (p *pointer) String() string {
	var toks []string
	for ; p != nil; p = p.up {
		toks = append(toks, pointerEscaper.Replace(p.tok))
	}
	var b strings.Builder
	b.WriteString("#")
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteString("/" + toks[i])
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// compile checks the schema node found at the JSON pointer at.
func (s *Schema) compile(node any, at *pointer) error {
	if _, ok := node.(bool); ok {
		return nil
	}
	o, ok := node.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("%s: a schema must be an object or a boolean, got %s", at, jsonv.Kind(node))
	}
	if s.compiled[o] {
		return nil
	}
	s.compiled[o] = true
	for _, k := range o.Keys() {
		v, _ := o.Get(k)
		if err := s.keyword(o, k, v, at.with(k)); err != nil {
			return err
		}
	}
	return nil
}

// keyword checks the value v of keyword k of the node o.
func (s *Schema) keyword(o *jsonv.Object, k string, v any, at *pointer) error {
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
		p, err := s.compilePattern(v, at)
		s.pattern[o] = p
		return err
	case "$ref":
		return s.ref(o, v, at)
	default:
		if unsupported[k] {
			return fmt.Errorf("%s: keyword '%s' is not supported by schema:validate", at, k)
		}
	}
	return nil
}

// ref resolves the $ref of node o once, and has its target compiled, which
// may lie outside the places compile walks (in $defs of a subschema, say).
func (s *Schema) ref(o *jsonv.Object, v any, at *pointer) error {
	ref, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: must be a string", at)
	}
	node, err := s.resolve(ref)
	if err != nil {
		return fmt.Errorf("%s: %v", at, err)
	}
	s.refs[o] = node
	s.targets = append(s.targets, target{node, ref, at})
	return nil
}

func checkType(v any, at *pointer) error {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, n := range names {
		if name, ok := n.(string); !ok || !typeNames[name] {
			return fmt.Errorf("%s: %s is not a JSON Schema type", at, short(n))
		}
	}
	return nil
}

func checkStrings(v any, at *pointer) error {
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

func checkNumber(v any, at *pointer, positive bool) error {
	n, ok := number(v)
	switch {
	case !ok:
		return fmt.Errorf("%s: must be a number", at)
	case positive && n <= 0:
		return fmt.Errorf("%s: must be a number above 0", at)
	}
	return nil
}

func checkCount(v any, at *pointer) error {
	n, ok := number(v)
	if !ok || n < 0 || n != float64(int(n)) {
		return fmt.Errorf("%s: must be a non-negative integer", at)
	}
	return nil
}

func (s *Schema) schemaMap(v any, at *pointer, patterns bool) error {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("%s: must be an object of schemas", at)
	}
	for _, k := range o.Keys() {
		if patterns {
			p, err := s.compilePattern(k, at)
			if err != nil {
				return err
			}
			s.patProps[o] = append(s.patProps[o], p)
		}
		e, _ := o.Get(k)
		if err := s.compile(e, at.with(k)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) schemaList(v any, at *pointer) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("%s: must be a non-empty array of schemas", at)
	}
	for i, e := range list {
		if err := s.compile(e, at.with(strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

// compilePattern compiles a pattern, once however often it occurs,
// counting its program against maxPatternInsts before regexp builds it.
func (s *Schema) compilePattern(v any, at *pointer) (*pattern, error) {
	p, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s: must be a string", at)
	}
	if done, ok := s.byText[p]; ok {
		return done, nil
	}
	bad := func(err error) error {
		return fmt.Errorf("%s: pattern %s is not a regular expression Go accepts: %v", at, short(p), err)
	}
	tooLarge := fmt.Errorf("%s: the schema's patterns are too large for the venue: together they compile to over %d regexp instructions", at, maxPatternInsts)
	if len(p) > maxPatternInsts-s.insts {
		return nil, tooLarge // a text this long takes its time and memory to parse, whatever it compiles to
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, bad(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, bad(err)
	}
	if s.insts += len(prog.Inst); s.insts > maxPatternInsts {
		return nil, tooLarge
	}
	compiled, err := regexp.Compile(p)
	if err != nil {
		return nil, bad(err)
	}
	s.byText[p] = &pattern{re: compiled, insts: len(prog.Inst)}
	return s.byText[p], nil
}

// resolve finds the schema a $ref names: a JSON pointer into this schema.
func (s *Schema) resolve(ref string) (any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %s: only references inside the schema (\"#/...\") are supported", short(ref))
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %s: %v", short(ref), err)
	}
	if frag != "" && frag[0] != '/' {
		return nil, fmt.Errorf("$ref %s: only JSON pointers (\"#/...\") are supported, not anchors", short(ref))
	}
	node := s.root
	for _, tok := range strings.Split(frag, "/")[1:] {
		tok = pointerUnescaper.Replace(tok)
		if node, ok = child(node, tok); !ok {
			return nil, fmt.Errorf("$ref %s: nothing there", short(ref))
		}
	}
	return node, nil
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

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

// number returns a JSON number's value.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
