package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	venue "github.com/gridvenue/venue"
)

// compiledSchema is an operation's input schema, ready to validate against;
// nil schema means the operation accepts any input. objectOnly marks the
// common schema {"type": "object"}, checked without parsing the input.
type compiledSchema struct {
	schema     *jsonschema.Schema
	objectOnly bool
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
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "schema of %s does not compile: %v", name, err)
	}
	return &compiledSchema{schema: s, objectOnly: isObjectOnly(doc)}, nil
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
	if s.schema == nil {
		return nil
	}
	if s.objectOnly {
		if input[0] != '{' {
			return venue.Errorf(venue.EINVALID, "Input schema violation: input: got %s, want object", jsonKind(input))
		}
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return venue.Errorf(venue.EINVALID, "Input is not valid JSON: %v", err)
	}
	err = s.schema.Validate(v)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return venue.Errorf(venue.EINVALID, "Input schema violation: %s", describeViolation(ve))
	}
	return err
}

// describeViolation names the deepest failing field and what was wrong with
// it, e.g. "input.sub.x: got string, want boolean".
func describeViolation(ve *jsonschema.ValidationError) string {
	leaf := ve.BasicOutput()
	for _, u := range leaf.Errors {
		if u.Error != nil {
			loc := "input" + strings.ReplaceAll(u.InstanceLocation, "/", ".")
			return fmt.Sprintf("%s: %s", loc, u.Error.String())
		}
	}
	return ve.Error()
}

// inputSchema returns op's compiled input schema, compiling it once.
func (e *Engine) inputSchema(op *venue.Operation) (*compiledSchema, error) {
	e.schemas.mu.Lock()
	s, ok := e.schemas.schemas[op.Asset]
	e.schemas.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := CompileSchema(op.Path, op.Input)
	if err != nil {
		return nil, err
	}
	e.schemas.mu.Lock()
	if e.schemas.schemas == nil || len(e.schemas.schemas) >= schemaCacheMax {
		e.schemas.schemas = map[venue.AssetID]*compiledSchema{}
	}
	e.schemas.schemas[op.Asset] = s
	e.schemas.mu.Unlock()
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
