// Package input decodes the JSON inputs of the built-in operations with
// errors worded for the caller (and the language model) that sent them.
package input
