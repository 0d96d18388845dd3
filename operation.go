package venue

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// Operation is a catalog entry: an asset whose metadata has an "operation"
// object naming the adapter that runs it and the JSON Schemas of its input
// and output.
type Operation struct {
	Path         string          // where it was found: v/ops/core/read, o/<name>, a/<hash>
	Name         string          // display name "adapter:op", e.g. "core:read"
	Title        string          // the metadata's "name", e.g. "Read Lattice Data"
	Description  string          // prose for people and language models
	Keywords     []string        // words a search for the operation may use
	Adapter      string          // the family that runs it, e.g. "core" or "wasm"
	Input        json.RawMessage // JSON Schema of the input
	Output       json.RawMessage // JSON Schema of the output
	SecretFields []string        // input and output fields masked in job records
	ToolName     string          // explicit MCP tool name, if the entry sets one
	Asset        AssetID         // the id of its metadata
	Meta         json.RawMessage // the metadata as registered
}

// RecordName is the name a job record gives the operation: its display
// name "adapter:op" or, for an operation of an adapter that names no op
// (an uploaded Wasm module), the metadata's name, which says more than
// "wasm" (the reference records the metadata's name).
func (o *Operation) RecordName() string {
	if o.SubOp() == "" && o.Title != "" {
		return o.Title
	}
	return o.Name
}

// SubOp returns the part of Name after the adapter, e.g. "read" for
// "core:read", or "" when the adapter needs none.
func (o *Operation) SubOp() string {
	_, sub, _ := strings.Cut(o.Name, ":")
	return sub
}

// opMeta is the part of asset metadata that makes it an operation.
type opMeta struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Keywords    []string `json:"keywords"`
	Operation   *struct {
		Adapter      string          `json:"adapter"`
		Input        json.RawMessage `json:"input"`
		Output       json.RawMessage `json:"output"`
		SecretFields []string        `json:"secretFields"`
		ToolName     string          `json:"toolName"`
	} `json:"operation"`
}

// ParseOperation reads asset metadata as an operation found at path.
// Returns EINVALID if the metadata has no "operation" object or no adapter.
func ParseOperation(path string, meta []byte) (*Operation, error) {
	var m opMeta
	if err := json.Unmarshal(meta, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, Errorf(EINVALID, "Operation metadata at %s has the wrong type at %s: expected %s",
				path, te.Field, jsonKind(te.Type.Kind()))
		}
		return nil, Errorf(EINVALID, "Operation metadata at %s is not a JSON object", path)
	}
	if m.Operation == nil {
		return nil, Errorf(EINVALID, "Asset is not an operation: %s (its metadata has no 'operation' object)", path)
	}
	if m.Operation.Adapter == "" {
		return nil, Errorf(EINVALID, "Metadata must contain operation.adapter field (at %s)", path)
	}
	id, err := AssetIDOf(meta)
	if err != nil {
		return nil, err
	}
	family, _, _ := strings.Cut(m.Operation.Adapter, ":")
	return &Operation{
		Path: path, Name: m.Operation.Adapter, Title: m.Name, Description: m.Description, Keywords: m.Keywords,
		Adapter: family, Input: m.Operation.Input, Output: m.Operation.Output,
		SecretFields: m.Operation.SecretFields, ToolName: m.Operation.ToolName,
		Asset: id, Meta: meta,
	}, nil
}

// jsonKind names what JSON a Go kind decodes from.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return "another type"
}
