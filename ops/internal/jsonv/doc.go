// Package jsonv holds JSON values decoded with their object members in
// document order, for operations whose output should keep the order their
// input had (a merged object, an inferred schema's properties, a preview).
//
// A value is one of: nil, bool, json.Number, string, []any, *Object.
package jsonv
