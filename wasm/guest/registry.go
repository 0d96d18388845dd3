package guest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Handler runs one operation on its JSON input and returns the output,
// which is marshalled to JSON (a json.RawMessage is kept as it is).
type Handler func(input json.RawMessage) (any, error)

// handlers maps a full adapter name ("core:read") to its handler. It is
// filled by Register from package init functions, before the host's first
// venue_run, and only read afterwards.
var handlers = map[string]Handler{}

// Register makes fn the handler of the operation whose adapter is name, as
// the catalog gives it ("core:read"). It is meant for init functions;
// registering a name twice is a build mistake and panics.
func Register(name string, fn Handler) {
	mustBeNew(name)
	handlers[name] = fn
}

// forwards maps the operations registered with RegisterForward to their
// host functions; filled and read as handlers is.
var forwards = map[string]string{}

// RegisterForward makes the operation whose adapter is name the host
// function fn, with the operation's input as its arguments: what a handler
// returning Forward(fn, input) does, without the handler. Such an operation
// is a single host call, and the guest then reuses its buffers from call to
// call and allocates nothing, where a handler's allocations and their
// collection would cost it more than the call.
func RegisterForward(name, fn string) {
	mustBeNew(name)
	forwards[name] = fn
}

// mustBeNew panics if name is registered already: a build mistake.
func mustBeNew(name string) {
	_, dup := handlers[name]
	if _, fwd := forwards[name]; dup || fwd {
		panic("guest: operation " + name + " registered twice")
	}
}

// Errorf returns an error whose text, formatted as fmt.Errorf does, becomes
// the job's error when a handler returns it.
func Errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// run dispatches one venue_run: it finds op's handler, runs it on input and
// returns the output JSON, or the error text. A panicking handler fails its
// job instead of trapping, so the instance survives a guest bug.
func run(op string, input []byte) (out []byte, err error) {
	fn, ok := handlers[op]
	if !ok {
		return nil, unknownOperation(op)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("operation %s panicked: %v", op, r)
		}
	}()
	v, err := fn(input)
	if err != nil {
		return nil, err
	}
	return marshal(v)
}

// marshal encodes v as compact JSON without escaping <, > and &, which
// outputs such as HTTP bodies carry and nobody embeds in HTML.
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok && len(raw) > 0 {
		// As it is: the host checks an output is JSON before it takes it.
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("output is not JSON: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// unknownOperation words a venue_run for an operation the module does not
// register. An uploaded module is called by its metadata's
// operation.adapter ("wasm" or "wasm:<name>"), which its author may not
// have registered (the package example registers "myop:hello"): say so,
// and what the module does register, since nothing else tells them.
func unknownOperation(op string) error {
	if op != "wasm" && !strings.HasPrefix(op, "wasm:") {
		return fmt.Errorf("unknown operation %s", op)
	}
	names := make([]string, 0, len(handlers)+len(forwards))
	for name := range handlers {
		names = append(names, name)
	}
	for name := range forwards {
		names = append(names, name)
	}
	slices.Sort(names)
	registered := "nothing"
	if len(names) > 0 {
		if len(names) > 8 {
			names = append(names[:8], "…")
		}
		registered = strings.Join(names, ", ")
	}
	return fmt.Errorf("unknown operation %s: the module registers %s; it is called with its metadata's operation.adapter, so register that name (guest.Register(%q, ...)) or set operation.adapter to \"wasm:<a name it registers>\" and register that", op, registered, op)
}
