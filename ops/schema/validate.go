package schema

import (
	"encoding/json"
	"errors"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// schema:validate has its own small validator rather than
// santhosh-tekuri/jsonschema (which the venue itself uses): that library
// and its golang.org/x/text dependencies grow the built-in module from
// 3.5 MB to 6.0 MB, and every instance and compile pays for the size.

// result is schema:validate's output; error names the first violation.
type result struct {
	Valid bool   `json:"valid"`
	Error string `json:"error,omitempty"`
}

func validateOp(in json.RawMessage) (any, error) {
	var p struct {
		Schema json.RawMessage `json:"schema"`
		Value  json.RawMessage `json:"value"`
	}
	if err := input.Decode("schema:validate", in, &p); err != nil {
		return nil, err
	}
	if !input.Present(p.Schema) {
		return nil, input.Required("schema")
	}
	if !input.Present(p.Value) {
		p.Value = json.RawMessage("null")
	}
	doc, err := jsonv.Parse(p.Schema)
	if err != nil {
		return nil, input.Invalid("schema", err)
	}
	v, err := jsonv.Parse(p.Value)
	if err != nil {
		return nil, input.Invalid("value", err)
	}
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	var bad *Violation
	switch err := s.Validate(v); {
	case errors.As(err, &bad):
		return result{Error: bad.Error()}, nil
	case err != nil:
		return nil, err // the schema cannot be applied: no verdict on the value
	}
	return result{Valid: true}, nil
}
