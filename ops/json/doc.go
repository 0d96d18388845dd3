// Package jsonops is the json family of built-in operations (json:merge,
// json:select, json:assoc, json:cond): small pure functions over JSON
// values, for composing other operations' inputs and outputs. Objects keep
// their member order. Their catalog entries sit in catalog/.
//
// The package is not named json so that it can use encoding/json under
// its own name.
package jsonops
