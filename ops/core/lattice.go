package core

import (
	"encoding/json"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/wasm/guest"
)

// Most core operations are one host call each: the guest checks what the
// reference venue checks itself (its exact messages), and passes the host's
// result through unchanged so that fields the host adds reach the caller.

func init() {
	guest.Register("core:read", read)
	guest.Register("core:write", write)
	guest.Register("core:delete", del)
	guest.Register("core:append", appendValue)
	guest.Register("core:copy", copyValue)
	guest.Register("core:list", list)
	guest.Register("core:slice", slice)
	guest.Register("core:inspect", inspect)
}

type pathValue struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// page is a path with an optional window; absent numbers stay absent so
// that the host applies its own defaults.
type page struct {
	Path   string `json:"path"`
	Offset *int   `json:"offset,omitempty"`
	Limit  *int   `json:"limit,omitempty"`
}

func read(in json.RawMessage) (any, error) {
	var p struct {
		Path    string `json:"path"`
		MaxSize *int   `json:"maxSize,omitempty"`
	}
	if err := input.Decode("core:read", in, &p); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, input.Required("path")
	}
	return host("lattice.read", p)
}

func write(in json.RawMessage) (any, error) {
	p, err := decodePathValue("core:write", in)
	if err != nil {
		return nil, err
	}
	return host("lattice.write", p)
}

func appendValue(in json.RawMessage) (any, error) {
	p, err := decodePathValue("core:append", in)
	if err != nil {
		return nil, err
	}
	return host("lattice.append", p)
}

func del(in json.RawMessage) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := input.Decode("core:delete", in, &p); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, input.Required("path")
	}
	return host("lattice.delete", p)
}

func copyValue(in json.RawMessage) (any, error) {
	var p struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := input.Decode("core:copy", in, &p); err != nil {
		return nil, err
	}
	switch {
	case p.From == "":
		return nil, input.Required("from")
	case p.To == "":
		return nil, input.Required("to")
	}
	return host("lattice.copy", p)
}

func list(in json.RawMessage) (any, error) {
	p, err := decodePage("core:list", in)
	if err != nil {
		return nil, err
	}
	return host("lattice.list", p)
}

func slice(in json.RawMessage) (any, error) {
	p, err := decodePage("core:slice", in)
	if err != nil {
		return nil, err
	}
	return host("lattice.slice", p)
}

// decodePathValue reads {path, value}; value may be null but not absent,
// since writing nothing is more likely a mistake than writing null.
func decodePathValue(op string, in json.RawMessage) (pathValue, error) {
	var p pathValue
	if err := input.Decode(op, in, &p); err != nil {
		return p, err
	}
	switch {
	case p.Path == "":
		return p, input.Required("path")
	case !input.Present(p.Value):
		return p, input.Required("value")
	}
	return p, nil
}

func decodePage(op string, in json.RawMessage) (page, error) {
	var p page
	if err := input.Decode(op, in, &p); err != nil {
		return p, err
	}
	if p.Path == "" {
		return p, input.Required("path")
	}
	return p, nil
}

// host makes one host call and returns its JSON result as the output.
func host(fn string, args any) (any, error) {
	var out json.RawMessage
	if err := guest.Call(fn, args, &out); err != nil {
		return nil, err
	}
	return out, nil
}
