package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Decode unmarshals the input of op into v. The engine has already checked
// the input against the operation's schema, so a failure here names what
// the schema could not catch.
func Decode(op string, in []byte, v any) error {
	if err := json.Unmarshal(in, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s: '%s' must be %s, got %s", op, te.Field, typeName(te.Type.Kind().String()), te.Value)
		}
		return fmt.Errorf("%s: input must be a JSON object: %v", op, err)
	}
	return nil
}

// Required returns the error for a missing field, in the reference's words.
func Required(field string) error {
	return fmt.Errorf("'%s' is required", field)
}

// Present reports whether a json.RawMessage field was given at all (an
// explicit null counts as given).
func Present(v json.RawMessage) bool {
	return len(bytes.TrimSpace(v)) > 0
}

func typeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32":
		return "an integer"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "a boolean"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return "a " + kind
}

// Invalid returns the error for a field that is not what it must be.
func Invalid(field string, err error) error {
	return fmt.Errorf("'%s' is invalid: %v", field, err)
}
