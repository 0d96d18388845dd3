package docsui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FixOpenAPI30 rewrites what Huma's OpenAPI.Downgrade leaves behind of
// OpenAPI 3.1 in a 3.0 JSON document, so that strict 3.0 tools accept it:
//
//   - {"const": x} becomes {"enum": [x]};
//   - a "type" list becomes one type plus "nullable": true when it held
//     "null", or an anyOf of single types when it held several;
//   - a schema's "examples" list becomes "example" (its first entry);
//   - numeric exclusiveMinimum/exclusiveMaximum become the 3.0 boolean form;
//   - any other key that 3.0 does not define for a schema, the document root
//     or its components (e.g. "contentMediaType", "dependentRequired", Huma's
//     "patternDescription", "webhooks") is kept as an "x-" extension, so the
//     information survives and validators ignore it.
//
// Only schema positions are rewritten: property names, example values,
// defaults and enums are left untouched even when they look like keywords.
// The output is compact JSON with sorted keys, so equal inputs give equal
// bytes. It returns an error if doc is not JSON or not an OpenAPI 3.0
// document.
func FixOpenAPI30(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // keep numbers byte-exact instead of going through float64
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("docsui: decode OpenAPI document: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("docsui: decode OpenAPI document: data after the top-level object")
	}
	if v, _ := root["openapi"].(string); !strings.HasPrefix(v, "3.0.") {
		return nil, fmt.Errorf("docsui: want an OpenAPI 3.0 document, got openapi %q", v)
	}
	extendUnknown(root, isRootKey)
	if c, ok := root["components"].(map[string]any); ok {
		extendUnknown(c, isComponentsKey)
	}
	walkDocument(root)
	return json.Marshal(root)
}

// walkDocument visits the parts of the document that are not schemas, and
// hands every schema it reaches to fixSchema.
func walkDocument(v any) {
	switch v := v.(type) {
	case []any:
		forEach(v, walkDocument)
	case map[string]any:
		for k, child := range v {
			switch {
			case k == "schema":
				fixSchema(child)
			case k == "schemas":
				forEach(child, fixSchema)
			case isNameMap(k):
				forEach(child, walkDocument)
			case !isLiteral(k):
				walkDocument(child)
			}
		}
	}
}

// fixSchema repairs a schema after its subschemas.
func fixSchema(v any) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	for k, child := range s {
		switch k {
		case "items", "additionalProperties", "not":
			fixSchema(child)
		case "properties", "allOf", "anyOf", "oneOf":
			forEach(child, fixSchema)
		}
	}
	if c, ok := s["const"]; ok {
		s["enum"] = []any{c}
		delete(s, "const")
	}
	fixType(s)
	if ex, ok := s["examples"].([]any); ok {
		if _, has := s["example"]; !has && len(ex) > 0 {
			s["example"] = ex[0]
		}
		delete(s, "examples")
	}
	fixExclusive(s, "exclusiveMinimum", "minimum")
	fixExclusive(s, "exclusiveMaximum", "maximum")
	extendUnknown(s, isSchemaKey)
}

// fixType turns a JSON Schema type list into 3.0's single type. An empty
// type, which Huma writes for a nullable schema of no fixed type, is dropped.
func fixType(s map[string]any) {
	var types []any
	switch t := s["type"].(type) {
	case []any:
		types = t
	case string:
		types = []any{t}
	default:
		return
	}
	var kept []any
	for _, t := range types {
		switch t {
		case "null":
			s["nullable"] = true
		case "":
		default:
			kept = append(kept, t)
		}
	}
	delete(s, "type")
	switch {
	case len(kept) == 1:
		s["type"] = kept[0]
	case len(kept) > 1 && s["anyOf"] == nil:
		alternatives := make([]any, len(kept))
		for i, t := range kept {
			alternatives[i] = map[string]any{"type": t}
		}
		s["anyOf"] = alternatives
	}
}

func fixExclusive(s map[string]any, exclusive, bound string) {
	if n, ok := s[exclusive].(json.Number); ok {
		s[bound] = n
		s[exclusive] = true
	}
}

// extendUnknown renames the keys that known rejects to "x-" extensions.
func extendUnknown(m map[string]any, known func(string) bool) {
	for k, v := range m {
		if !known(k) && !strings.HasPrefix(k, "x-") {
			m["x-"+k] = v
			delete(m, k)
		}
	}
}

// forEach applies f to the values of a JSON object or the items of an array.
func forEach(v any, f func(any)) {
	switch v := v.(type) {
	case map[string]any:
		for _, child := range v {
			f(child)
		}
	case []any:
		for _, child := range v {
			f(child)
		}
	}
}
