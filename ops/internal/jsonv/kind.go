package jsonv

import (
	"encoding/json"
	"strings"
)

// Kind names the JSON type of v as JSON Schema does: "null", "boolean",
// "integer", "number", "string", "array" or "object". A number is an
// integer when written without a fraction or exponent.
func Kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "number"
		}
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case *Object:
		return "object"
	}
	return "unknown"
}

// Truthy reports whether v counts as true in a condition: everything but
// null, false, 0, "", [] and {}.
func Truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case json.Number:
		f, err := v.Float64()
		return err != nil || f != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case *Object:
		return v.Len() > 0
	}
	return true
}
