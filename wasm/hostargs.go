package wasm

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/internal/jsonscan"
)

// args are a host call's arguments. A request carries them as its own
// members ({"fn": "lattice.read", "path": ...}), or forwards the running
// operation's input whole as "args" ({"fn": "lattice.read", "args":
// <input>}, what guest.Forward sends). A forwarded input has not been read
// by the guest, so its mistakes are the caller's, not the guest author's:
// they are worded as the operation's input errors ('path' is required),
// not as a call made wrongly.
type args struct {
	raw []byte
	op  string // the operation whose input was forwarded; "" for a request's own members
}

// split returns the function req names and its arguments. The form
// guest.Forward writes is recognised without decoding the input twice;
// anything else is decoded as a JSON object.
func (c *callState) split(req []byte) (string, args, error) {
	if fn, in, ok := cutForward(req); ok {
		return fn, args{raw: in, op: c.opName()}, nil
	}
	var head struct {
		Fn   string          `json:"fn"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(req, &head); err != nil || head.Fn == "" {
		return "", args{}, errors.New(`the request must be a JSON object with a string "fn"`)
	}
	if head.Args != nil {
		return head.Fn, args{raw: head.Args, op: c.opName()}, nil
	}
	return head.Fn, args{raw: req}, nil
}

// cutForward recognises exactly {"fn":"<name>","args":{...}}, a name of
// printable ASCII and an object that is valid JSON by itself, which a
// decoder would read the same way.
func cutForward(req []byte) (fn string, in []byte, ok bool) {
	rest, ok := bytes.CutPrefix(req, []byte(`{"fn":"`))
	if !ok {
		return "", nil, false
	}
	end := bytes.IndexByte(rest, '"')
	if end <= 0 || bytes.ContainsFunc(rest[:end], func(r rune) bool { return r < 0x20 || r > 0x7e || r == '\\' }) {
		return "", nil, false
	}
	in, ok = bytes.CutPrefix(rest[end+1:], []byte(`,"args":`))
	if !ok || len(in) < 3 || in[0] != '{' || in[len(in)-1] != '}' || !json.Valid(in[:len(in)-1]) {
		return "", nil, false
	}
	return string(rest[:end]), in[:len(in)-1], true
}

// opName is the operation running, for wording forwarded inputs' errors;
// a command module's input is its operation's too.
func (c *callState) opName() string {
	if c.op == "" {
		return "input"
	}
	return c.op
}

// decode unmarshals the arguments into v, a pointer to a struct. Unknown
// members are ignored, as an operation's input may carry members its host
// call does not use; a member named as one of v's but for case is refused,
// since encoding/json would take it for that one (jsonscan.CaseVariant).
func (a args) decode(v any) error { return a.decodeTaking(v, jsonNames(v)) }

// latticeTakes names the arguments each lattice function reads of the
// latticeArgs all of them decode into: an operation's input forwarded
// whole may well hold a "To" or a "Limit" of its own beside a write's path.
var latticeTakes = map[string][]string{
	"lattice.read": {"path", "maxSize"}, "lattice.write": {"path", "value"}, "lattice.append": {"path", "value"},
	"lattice.delete": {"path"}, "lattice.list": {"path", "offset", "limit"}, "lattice.slice": {"path", "offset", "limit"},
	"lattice.copy": {"from", "to"},
}

// decodeTaking is decode for a function that reads only the members names
// of v: a case variant of any other is no concern of the call's.
func (a args) decodeTaking(v any, names []string) error {
	if got, want := jsonscan.CaseVariant(a.raw, names); got != "" {
		if a.op == "" {
			return invalid("the request gives the member %q: member names are case-sensitive; did you mean %q?", got, want)
		}
		return venue.Errorf(venue.EINVALID, "%s: input gives the member %q: member names are case-sensitive; did you mean %q?", a.op, got, want)
	}
	err := json.Unmarshal(a.raw, v)
	if err == nil {
		return nil
	}
	if a.op == "" {
		return argError(err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// JSON Schema's integer (the catalog's) takes 1.0 and 1e2; Go's
		// int fields do not. Written as integers, they decode.
		if integral, ok := integralNumbers(a.raw); ok && json.Unmarshal(integral, v) == nil {
			return nil
		}
		if n, isNumber := strings.CutPrefix(te.Value, "number "); isNumber && inputKind(te.Type.Kind().String()) == "an integer" && wholeNumber(n) {
			return venue.Errorf(venue.EINVALID, "%s: '%s' is out of range: %s does not fit an integer here (%d to %d)", a.op, te.Field, clipNumber(n), math.MinInt64, math.MaxInt64)
		}
		return venue.Errorf(venue.EINVALID, "%s: '%s' must be %s, got %s", a.op, te.Field, inputKind(te.Type.Kind().String()), te.Value)
	}
	return venue.Errorf(venue.EINVALID, "%s: input must be a JSON object: %v", a.op, err)
}

// required checks that the values of pairs (value, name, ...) are set.
func (a args) required(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] != "" {
			continue
		}
		if a.op != "" {
			return venue.Errorf(venue.EINVALID, "'%s' is required", pairs[i+1])
		}
		return invalid("%q is required", pairs[i+1])
	}
	return nil
}

// inputKind names a Go kind as an operation's input speaks of it.
func inputKind(goKind string) string {
	switch goKind {
	case "int", "int64", "int32", "uint32":
		return "an integer"
	case "float64", "float32":
		return "a number"
	}
	return jsonKind(goKind)
}

// integralNumbers rewrites every number in raw that has an integer value
// but is not written as one (1.0, 1e2) as an integer, and reports whether
// there was any.
func integralNumbers(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	changed := false
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if _, err := v.Int64(); err == nil {
				return v
			}
			f, err := v.Float64()
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return v
			}
			changed = true
			return json.Number(strconv.FormatInt(int64(f), 10))
		case map[string]any:
			for k, e := range v {
				v[k] = walk(e)
			}
		case []any:
			for i, e := range v {
				v[i] = walk(e)
			}
		}
		return v
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// jsonNames returns the member names encoding/json gives the fields of the
// struct v points to; none if v points to anything else.
func jsonNames(v any) []string {
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}

// wholeNumber reports whether n, a JSON number, is written as an integer.
func wholeNumber(n string) bool {
	n = strings.TrimPrefix(n, "-")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// clipNumber shortens a long number quoted in an error.
func clipNumber(n string) string {
	if len(n) > 40 {
		return n[:40] + "…"
	}
	return n
}
