package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// invokeBody is the decoded body of invoke and run (documented by InvokeRequest).
type invokeBody struct {
	Operation *string         `json:"operation"`
	Input     json.RawMessage `json:"input"`
	Wait      any             `json:"wait"`
	UCANs     []string        `json:"ucans"`
	Private   bool            `json:"private"`
}

// invocation is invokeBody once checked.
type invocation struct {
	Operation string
	Input     json.RawMessage
	Wait      any
	UCANs     []string
}

// decodeInvoke decodes an invoke body strictly, with the same messages
// Huma's validation gives elsewhere: the field at fault, and what it
// should be.
// emptyInvoke is what an invoke or run should send.
const emptyInvoke = `{"operation": "<reference, e.g. v/ops/core/read>", "input": {...}}`

func decodeInvoke(b []byte) (invocation, error) {
	if !utf8.Valid(b) {
		return invocation{}, notUTF8(int64(firstNotUTF8(b)))
	}
	if inv, ok := quickInvoke(b); ok {
		return inv, nil
	}
	if bytes.HasPrefix(b, bom) {
		return invocation{}, errBOM
	}
	return decodeInvokeSlow(b)
}

// decodeInvokeSlow decodes any body with encoding/json, and words what is
// wrong with it.
func decodeInvokeSlow(b []byte) (invocation, error) {
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 {
		return invocation{}, venue.Errorf(venue.EINVALID, "The request body is empty: send "+emptyInvoke)
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return invocation{}, notJSON(json.Unmarshal(trimmed, new(any)))
		}
		return invocation{}, venue.Errorf(venue.EINVALID, "Invalid request: body: expected object")
	}
	if err := strictMembers(trimmed, invokeMembers); err != nil {
		return invocation{}, err
	}
	var body invokeBody
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) && te.Field == "operation" {
			return invocation{}, errNoOperation
		}
		return invocation{}, decodeError(err)
	}
	if len(bytes.TrimLeft(trimmed[dec.InputOffset():], " \t\r\n")) > 0 {
		return invocation{}, venue.Errorf(venue.EINVALID, "Request body is not valid JSON: body: unexpected data after the object")
	}
	switch {
	case body.Operation == nil:
		return invocation{}, errNoOperation
	case *body.Operation == "":
		return invocation{}, venue.Errorf(venue.EINVALID, "Invalid request: body.operation: expected length >= 1")
	}
	return invocation{Operation: *body.Operation, Input: body.Input, Wait: body.Wait, UCANs: body.UCANs}, nil
}

// unknownMember returns the first name, in sorted order, of a member of
// the object b that known does not hold, or "" if there is none or b is
// not an object.
func unknownMember(b []byte, known map[string]bool) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return ""
	}
	var unknown []string
	for name := range members {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return slices.Min(unknown)
}

// strictMembers refuses what encoding/json would let through silently in
// an object's own members: a name given twice (it keeps the last) and a
// known name in other letter case (it matches any case). Other names, and
// the rest of b, are left to the decoder, which words their faults.
func strictMembers(b []byte, known map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return nil
		}
		switch {
		case seen[name]:
			return venue.Errorf(venue.EINVALID, "Invalid request: body.%s: given more than once", clipName(name))
		case !known[name]:
			for k := range known {
				if strings.EqualFold(k, name) {
					return venue.Errorf(venue.EINVALID, "Invalid request: body.%s: unexpected property; names are case-sensitive: write %s",
						clipName(name), k)
				}
			}
		}
		seen[name] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return nil
}

// errNoOperation answers a body whose operation is missing or not a
// string, in the reference venue's words. /api/v1/run says "Run" instead
// of "Invoke" (noOperation).
var errNoOperation = venue.Errorf(venue.EINVALID, "Invoke request requires an 'operation' parameter as a String")

// noOperation words errNoOperation for the endpoint: the reference venue
// says "Run request requires ..." on /api/v1/run.
func noOperation(err error, endpoint string) error {
	if err == error(errNoOperation) && endpoint == "run" {
		return venue.Errorf(venue.EINVALID, "Run request requires an 'operation' parameter as a String")
	}
	return err
}

var invokeMembers = map[string]bool{"operation": true, "input": true, "wait": true, "ucans": true, "private": true}

// clipName shortens a member name quoted in an error.
func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// decodeError words an encoding/json failure without Go type names and
// without echoing the value.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := map[string]string{"string": "string", "bool": "boolean", "[]string": "array of strings",
			"float64": "a number within the range of a double"}[te.Type.String()]
		if te.Field == "ucans" {
			want = "array of strings"
		}
		if want == "" {
			want = te.Type.String()
		}
		return venue.Errorf(venue.EINVALID, "Invalid request: body.%s: expected %s", te.Field, want)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return venue.Errorf(venue.EINVALID, "Invalid request: body.%s: unexpected property", strings.Trim(field, `"`))
	}
	return notJSON(err)
}

func notJSON(err error) error {
	msg := "unexpected end of JSON input"
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		msg = strings.TrimPrefix(err.Error(), "json: ")
	}
	return venue.Errorf(venue.EINVALID, "Request body is not valid JSON: body: %s", msg)
}
