package runtime

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// checkDeclaredOutput holds the output of an operation whose code a user
// uploaded (an adapter with a ModuleChecker) to the output schema its
// metadata declares: a client generated from that schema reads what the
// schema promises, and an operation breaking it fails its job, saying
// where. The catalog's own operations are the venue's code, tested against
// their schemas, and pay nothing here.
func (e *Engine) checkDeclaredOutput(op *venue.Operation, out json.RawMessage) error {
	if !e.uploadedCode(op) {
		return nil
	}
	// As inputs and lattice writes are: a member given twice, a number past
	// a double and half a surrogate pair read differently in different
	// readers (RFC 8259 leaves them open).
	if name, dup, _ := jsonscan.Duplicate(out); dup {
		return venue.Errorf(venue.EINTERNAL, "Operation returned output that gives the member %q twice in one object", clipRef(name))
	}
	if msg, _ := misread(out); msg != "" {
		return venue.Errorf(venue.EINTERNAL, "Operation returned output with %s", msg)
	}
	if len(bytes.TrimSpace(op.Output)) == 0 {
		return nil
	}
	s, err := e.outputSchema(op)
	if err != nil || s.schema == nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return venue.Errorf(venue.EINTERNAL, "Operation returned output that is not JSON")
	}
	var ve *jsonschema.ValidationError
	if err := s.schema.Validate(v); errors.As(err, &ve) {
		return venue.Errorf(venue.EINTERNAL, "Output schema violation: %s (the operation's output breaks the schema its metadata declares)", describeViolation(ve, "output"))
	}
	return nil
}

// outputSchema returns op's compiled output schema, compiling it once.
func (e *Engine) outputSchema(op *venue.Operation) (*compiledSchema, error) {
	if s, ok := e.schemas.compiled(&e.schemas.outputs, op.Asset); ok {
		return s, nil
	}
	s, err := CompileSchema(op.Path, op.Output)
	if err != nil {
		return nil, err
	}
	e.schemas.putCompiled(&e.schemas.outputs, op.Asset, s)
	return s, nil
}
