package docsui

import "strings"

// The key sets below come from the OpenAPI 3.0.3 specification. They are
// switch functions rather than map variables so that the package holds no
// mutable state.

// isSchemaKey reports whether k is a field of a 3.0 Schema Object.
func isSchemaKey(k string) bool {
	switch k {
	case "$ref", "title", "description", "type", "format", "nullable",
		"default", "example", "enum", "readOnly", "writeOnly", "deprecated",
		"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern",
		"items", "maxItems", "minItems", "uniqueItems",
		"properties", "additionalProperties", "required", "maxProperties", "minProperties",
		"allOf", "oneOf", "anyOf", "not", "discriminator", "xml", "externalDocs":
		return true
	}
	return false
}

// isRootKey reports whether k is a field of a 3.0 OpenAPI Object; 3.1 added
// "webhooks" and "jsonSchemaDialect".
func isRootKey(k string) bool {
	switch k {
	case "openapi", "info", "servers", "paths", "components", "security", "tags", "externalDocs":
		return true
	}
	return false
}

// isComponentsKey reports whether k is a field of a 3.0 Components Object;
// 3.1 added "pathItems".
func isComponentsKey(k string) bool {
	switch k {
	case "schemas", "responses", "parameters", "examples", "requestBodies",
		"headers", "securitySchemes", "links", "callbacks":
		return true
	}
	return false
}

// isNameMap reports whether k holds an object whose keys are names chosen by
// the API author (paths, status codes, media types, header names...), which
// must never be mistaken for keywords.
func isNameMap(k string) bool {
	switch k {
	case "paths", "responses", "parameters", "requestBodies", "headers",
		"securitySchemes", "links", "callbacks", "content", "encoding", "variables":
		return true
	}
	return false
}

// isLiteral reports whether k holds data rather than document structure:
// examples, defaults, enums, security requirements and extensions.
func isLiteral(k string) bool {
	switch k {
	case "example", "examples", "default", "enum", "security":
		return true
	}
	return strings.HasPrefix(k, "x-")
}
