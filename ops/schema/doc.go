// Package schema is the schema family of built-in operations: schema:infer
// (a JSON Schema from an example value) and schema:validate (a value
// against a JSON Schema, draft 2020-12 by default). Both are pure
// computations with no host calls. Their catalog entries sit in catalog/.
package schema
