package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Log levels for Log, as the host module's venue.log numbers them.
const (
	LevelDebug = 0
	LevelInfo  = 1
	LevelWarn  = 2
	LevelError = 3
)

// HostError is a host call the host refused or failed. Its text is the
// host's message unchanged (a capability refusal, an SSRF rejection, an
// unresolvable secret reference), so a handler that returns it gives the
// job the host's own error.
type HostError struct {
	Fn      string // the host function, e.g. "lattice.read"
	Message string // the host's error message
}

func (e *HostError) Error() string { return e.Message }

// Call performs the host function fn ("lattice.read", "http.request", ...)
// with args, a map or struct that marshals to a JSON object (nil for none),
// and unmarshals the JSON result into out unless out is nil. The request
// sent is {"fn": fn, ...args}; args must not have a member "fn".
// Returns a *HostError when the host reports a failure.
func Call(fn string, args any, out any) error {
	req, err := request(fn, args)
	if err != nil {
		return err
	}
	res, failed := hostCall(req, nil)
	if failed {
		return &HostError{Fn: fn, Message: string(res)}
	}
	switch out := out.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		// The host's results are JSON it made itself: pass them on
		// without scanning them again, which costs a guest as much as
		// the call.
		*out = res
		return nil
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s returned an unexpected result: %v", fn, err)
	}
	return nil
}

// Forward performs the host function fn with the operation's input as its
// arguments, unread, and returns the host's JSON result as it came. The
// host checks the arguments itself (it trusts no guest) and words its
// refusals as mistakes in the operation's input ('path' is required), so an
// operation that is one host call spends nothing on JSON in the guest, where
// a decode and an encode cost more than the call. input must be a JSON
// object; fn is one of the host's function names.
func Forward(fn string, input json.RawMessage) (json.RawMessage, error) {
	req, err := appendForward(nil, fn, input)
	if err != nil {
		return nil, err
	}
	res, failed := hostCall(req, nil)
	if failed {
		return nil, &HostError{Fn: fn, Message: string(res)}
	}
	return res, nil
}

// appendForward appends to dst the request of Forward(fn, input).
func appendForward(dst []byte, fn string, input []byte) ([]byte, error) {
	in := bytes.TrimSpace(input)
	if len(in) < 2 || in[0] != '{' {
		return nil, errNotObject
	}
	dst = append(append(append(dst, `{"fn":"`...), fn...), `","args":`...)
	return append(append(dst, in...), '}'), nil
}

var errNotObject = errors.New("input must be a JSON object")

// request builds {"fn": fn, ...args}: fn first, so that it reads first in
// any host log, then the members of args.
func request(fn string, args any) ([]byte, error) {
	head, _ := json.Marshal(fn)
	req := append([]byte(`{"fn":`), head...)
	if args == nil {
		return append(req, '}'), nil
	}
	body, err := marshal(args)
	if err != nil {
		return nil, fmt.Errorf("arguments of %s: %v", fn, err)
	}
	if string(body) == "null" {
		return append(req, '}'), nil
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("arguments of %s must be a JSON object, got %.20s", fn, body)
	}
	if inner := bytes.TrimSpace(body[1 : len(body)-1]); len(inner) > 0 {
		req = append(append(req, ','), inner...)
	}
	return append(req, '}'), nil
}

// Log sends msg to the venue's log at level (LevelDebug … LevelError),
// tagged with the job. Outside a wasm host it does nothing.
func Log(level int, msg string) {
	hostLog(int32(level), msg)
}
