package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// The functions venue.call performs, by the request's "fn". Each acts as
// the job's caller through its runtime.Env; a failure becomes the error
// message the guest collects, never a trap.

// do performs the host call req and returns its JSON result.
func (c *callState) do(ctx context.Context, req []byte) ([]byte, error) {
	if c.env == nil {
		return nil, errors.New("no job is running: host calls are only possible inside venue_run or a command's _start")
	}
	fn, a, err := c.split(req)
	if err != nil {
		return nil, err
	}
	res, err := c.perform(ctx, fn, a)
	if errors.As(err, new(usageError)) {
		return nil, fmt.Errorf("%s: %s", fn, message(err))
	}
	if err != nil {
		// The venue's own answer (a refused URL, a missing secret) reaches
		// the guest, and from there the job, in the venue's exact words,
		// and with its code if the guest passes it on (guestFailure).
		return nil, errors.New(c.refusal(err))
	}
	out, err := encodeResult(res)
	if err == nil && len(out) > maxHostIO {
		err = fmt.Errorf("%s: the result of %d bytes exceeds the limit of %d bytes", fn, len(out), maxHostIO)
	}
	return out, err
}

// encodeResult encodes a host function's result; the engine's results that
// know their own JSON skip encoding/json, which would validate and compact
// the values they carry once more.
func encodeResult(res any) ([]byte, error) {
	if r, ok := res.(interface{ AppendJSON([]byte) []byte }); ok {
		return r.AppendJSON(nil), nil
	}
	return json.Marshal(res)
}

func (c *callState) perform(ctx context.Context, fn string, a args) (any, error) {
	switch fn {
	case "lattice.read", "lattice.write", "lattice.delete", "lattice.append",
		"lattice.list", "lattice.slice", "lattice.copy":
		la, ok := quickLattice(a.raw)
		if !ok {
			la = latticeArgs{}
			if err := a.decodeTaking(&la, latticeTakes[fn]); err != nil {
				return nil, err
			}
		}
		return la.perform(ctx, fn, a, c.env)
	case "http.request":
		var hr runtime.HTTPRequest
		if err := a.decode(&hr); err != nil {
			return nil, err
		}
		if err := a.required(hr.URL, "url"); err != nil {
			return nil, err
		}
		return c.env.HTTP(ctx, hr)
	case "secret.set":
		return setSecret(ctx, c.env, a)
	}
	return nil, invalid("no such host function")
}

func (a *latticeArgs) perform(ctx context.Context, fn string, in args, env *runtime.Env) (any, error) {
	if fn == "lattice.copy" {
		if err := in.required(a.From, "from", a.To, "to"); err != nil {
			return nil, err
		}
		return map[string]bool{"copied": true}, env.Copy(ctx, a.From, a.To)
	}
	if err := in.required(a.Path, "path"); err != nil {
		return nil, err
	}
	switch fn {
	case "lattice.read":
		return env.Read(ctx, a.Path, a.MaxSize)
	case "lattice.list":
		return env.List(ctx, a.Path, a.Offset, a.Limit)
	case "lattice.slice":
		return env.Slice(ctx, a.Path, a.Offset, a.Limit)
	case "lattice.delete":
		deleted, err := env.Delete(ctx, a.Path)
		return map[string]bool{"deleted": deleted}, err
	}
	if len(a.Value) == 0 {
		return nil, in.required("", "value")
	}
	if fn == "lattice.write" {
		return map[string]bool{"written": true}, env.Write(ctx, a.Path, a.Value)
	}
	i, err := env.Append(ctx, a.Path, a.Value)
	return map[string]any{"appended": true, "index": i}, err
}

func setSecret(ctx context.Context, env *runtime.Env, in args) (any, error) {
	var a struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	if err := in.decode(&a); err != nil {
		return nil, err
	}
	if err := in.required(a.Name, "name", a.Value, "value"); err != nil {
		return nil, err
	}
	if err := env.PutSecret(ctx, a.Name, a.Value); err != nil {
		return nil, err
	}
	return map[string]any{"name": a.Name, "stored": true}, nil
}

// usageError marks a host call made wrongly (bad arguments, an unknown
// function): its message names the function, to help the guest's author.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func invalid(format string, args ...any) error {
	return usageError{venue.Errorf(venue.EINVALID, format, args...)}
}

// argError words a decoding error without Go's type names.
func argError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return invalid("the request must be a JSON object")
		}
		return invalid("%q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return invalid("%v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "uint32", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return "a " + goKind
}

// message is what the guest may see of err: the venue's message, never an
// internal error's text.
func message(err error) string {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "the job's deadline passed or it was cancelled"
	}
	return venue.ErrorMessage(err)
}
