package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	venue "github.com/gridvenue/venue"
)

// compiledSchema is an operation's input schema, ready to validate against;
// nil schema means the operation accepts any input. objectOnly marks the
// common schema {"type": "object"}, checked without parsing the input;
// flat, when not nil, passes most inputs of a flat object schema without
// parsing them either.
type compiledSchema struct {
	schema     *jsonschema.Schema
	objectOnly bool
	flat       *flatSchema
	names      *inputNames
	// inherited: names holds those of the catalog's entry for the same
	// adapter too, which the fast paths above know nothing of.
	inherited bool
}

// CompileSchema compiles a JSON Schema document (draft 2020-12 unless it
// says otherwise with $schema). An empty document accepts anything.
// Returns EINVALID with the compiler's reason if it does not compile.
func CompileSchema(name string, doc json.RawMessage) (*compiledSchema, error) {
	if len(bytes.TrimSpace(doc)) == 0 || string(doc) == "null" {
		return &compiledSchema{}, nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "schema of %s is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Schemas come from catalog entries and uploaded metadata; never let
	// one make the venue fetch a URL or read a file.
	c.UseLoader(refusingLoader{})
	url := "venue:///" + strings.NewReplacer("/", "_", ":", "_").Replace(name) + ".json"
	if err := c.AddResource(url, v); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "schema of %s: %v", name, err)
	}
	s, err := c.Compile(url)
	var bad *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &bad) && errors.As(bad.Err, &ve) {
		// Against the metaschema: name the keyword and what is wrong with
		// it, not the library's tree of allOf and anyOf under a URL that
		// exists only inside the venue.
		return nil, venue.Errorf(venue.EINVALID, "schema of %s does not compile: %s", name, schemaFaults(ve))
	}
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "schema of %s does not compile: %s", name, strings.ReplaceAll(err.Error(), url, ""))
	}
	return &compiledSchema{schema: s, objectOnly: isObjectOnly(doc), flat: newFlatSchema(doc), names: namesOf(doc)}, nil
}

// isObjectOnly reports whether doc is exactly {"type": "object"}, which
// asks only that the input be a JSON object.
func isObjectOnly(doc json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(doc, &m) == nil && len(m) == 1 && m["type"] == "object"
}

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %s: only references inside the schema are allowed", url)
}

// validate checks input. Returns EINVALID naming the first bad field.
// The input is valid, compact JSON (checkInput made it so).
func (s *compiledSchema) validate(input json.RawMessage) error {
	if s.objectOnly && input[0] != '{' {
		return venue.Errorf(venue.EINVALID, "Input schema violation: input: got %s, want object", jsonKind(input))
	}
	// The answers that need no decoding; the flat check declines any input
	// with a case variant of a property. Names inherited from the
	// catalog's adapter are known to none of them.
	valid := s.schema == nil || s.objectOnly || s.flat != nil && s.flat.valid(input)
	if valid && !s.inherited {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return venue.Errorf(venue.EINVALID, "Input is not valid JSON: %v", err)
	}
	// First, since a misspelt required member is also a missing one, and
	// this says what to fix.
	if err := s.names.refuseVariants(v, "input"); err != nil {
		return err
	}
	if valid {
		return nil
	}
	err = s.schema.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return venue.Errorf(venue.EINVALID, "Input schema violation: %s", describeViolation(ve, "input"))
	}
	return err
}

// describeViolation names the deepest failing field and what was wrong with
// it, e.g. "input.sub.x: got string, want boolean".
func describeViolation(ve *jsonschema.ValidationError, label string) string {
	leaf := ve.BasicOutput()
	for _, u := range leaf.Errors {
		if u.Error != nil {
			loc := label + strings.ReplaceAll(u.InstanceLocation, "/", ".")
			return fmt.Sprintf("%s: %s", loc, describeKind(u.Error))
		}
	}
	return label + ": does not match the operation's " + label + " schema"
}

// schemaFaults words what makes a schema fail the metaschema: each of the
// innermost failures, where the keyword and what is wrong with it are, e.g.
// "schema.required: got string, want array". Unlike an input's faults,
// the values may be shown: a schema is its author's, never a secret.
func schemaFaults(ve *jsonschema.ValidationError) string {
	english := message.NewPrinter(language.English)
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			d := "schema" + strings.ReplaceAll("/"+strings.Join(v.InstanceLocation, "/"), "/", ".")
			d = strings.TrimSuffix(d, ".") + ": " + v.ErrorKind.LocalizedString(english)
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(out, "; ")
}

// describeKind words one violation as the schema library does, except that
// numbers are plain (its English printer writes 1×10¹² and 600,000) and the
// offending value is never shown: pattern and format failures would echo
// it, and it may be a secret.
func describeKind(e *jsonschema.OutputError) string {
	switch k := e.Kind.(type) {
	case *kind.Pattern:
		return "does not match pattern '" + k.Want + "'"
	case *kind.Format:
		return "is not a valid " + k.Want
	case *kind.Minimum:
		return bound("minimum", k.Got, k.Want)
	case *kind.Maximum:
		return bound("maximum", k.Got, k.Want)
	case *kind.ExclusiveMinimum:
		return bound("exclusiveMinimum", k.Got, k.Want)
	case *kind.ExclusiveMaximum:
		return bound("exclusiveMaximum", k.Got, k.Want)
	case *kind.MultipleOf:
		return bound("multipleOf", k.Got, k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("minLength: got %d, want %d", k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("maxLength: got %d, want %d", k.Got, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("minItems: got %d, want %d", k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("maxItems: got %d, want %d", k.Got, k.Want)
	case *kind.MinProperties:
		return fmt.Sprintf("minProperties: got %d, want %d", k.Got, k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("maxProperties: got %d, want %d", k.Got, k.Want)
	}
	return e.String()
}

func bound(keyword string, got, want *big.Rat) string {
	return fmt.Sprintf("%s: got %s, want %s", keyword, plainNumber(got), plainNumber(want))
}

// plainNumber writes a number as JSON would: digits, with an exponent only
// for the very large or very small.
func plainNumber(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() && len(r.Num().String()) <= 21 {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// inputSchema returns op's compiled input schema, compiling it once.
func (e *Engine) inputSchema(op *venue.Operation) (*compiledSchema, error) {
	if s, ok := e.schemas.compiled(&e.schemas.schemas, op.Asset); ok {
		return s, nil
	}
	s, err := CompileSchema(op.Path, op.Input)
	if err != nil {
		return nil, err
	}
	// A pin or an asset copying a built-in adapter, with a schema of its
	// own or none, reaches the same decoding: its input is held to the
	// adapter's names too, as its secret fields are (withSecretFields).
	if base, ok := e.cat.byName[op.Name]; ok && base.Asset != op.Asset {
		if bs, err := e.inputSchema(base); err == nil && bs.names != nil {
			s.names, s.inherited = s.names.merge(bs.names), true
		}
	}
	e.schemas.putCompiled(&e.schemas.schemas, op.Asset, s)
	return s, nil
}

// jsonKind names the kind of a JSON value the way schema errors do.
func jsonKind(v json.RawMessage) string {
	switch k := typeOf(v); k {
	case "Map":
		return "object"
	case "Vector":
		return "array"
	default:
		return strings.ToLower(k)
	}
}
