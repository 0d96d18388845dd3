package http

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/wasm/guest"
)

func init() {
	guest.Register("http:get", get)
	guest.Register("http:post", post)
}

// request is both operations' input and, with the method set, the host's
// http.request arguments.
type request struct {
	Method        string            `json:"method"`
	URL           string            `json:"url"`
	Headers       map[string]string `json:"headers,omitempty"`
	QueryParams   map[string]string `json:"queryParams,omitempty"`
	Body          json.RawMessage   `json:"body,omitempty"`
	BearerSecret  string            `json:"bearerSecret,omitempty"`
	SecretHeaders map[string]string `json:"secretHeaders,omitempty"`
	TimeoutMs     int               `json:"timeoutMs,omitempty"`
}

// methods are those either operation sends, as the reference venue's
// HTTP operation does; each has its own default.
var methods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

func get(in json.RawMessage) (any, error) {
	return call("http:get", "GET", in)
}

func post(in json.RawMessage) (any, error) {
	return call("http:post", "POST", in)
}

// call sends the request in, with method def unless it names another.
func call(op, def string, in json.RawMessage) (any, error) {
	r, err := decode(op, in)
	if err != nil {
		return nil, err
	}
	if r.Method = strings.ToUpper(r.Method); r.Method == "" {
		r.Method = def
	}
	if !methods[r.Method] {
		return nil, guest.Errorf("Unsupported HTTP method: %s", r.Method)
	}
	if r.Method == "GET" {
		r.Body = nil
	}
	return send(r)
}

// decode reads the input, taking numbers and booleans in headers and
// queryParams as their JSON text ({"page": 2} means page=2).
func decode(op string, in json.RawMessage) (request, error) {
	var p struct {
		request
		Headers     map[string]json.RawMessage `json:"headers"`
		QueryParams map[string]json.RawMessage `json:"queryParams"`
	}
	if err := input.Decode(op, in, &p); err != nil {
		return p.request, err
	}
	r := p.request
	if r.URL == "" {
		return r, input.Required("url")
	}
	var err error
	if r.Headers, err = texts("headers", p.Headers); err != nil {
		return r, err
	}
	r.QueryParams, err = texts("queryParams", p.QueryParams)
	return r, err
}

// texts turns a map of JSON scalars into strings: a string as it is, a
// number or boolean as written.
func texts(field string, m map[string]json.RawMessage) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, raw := range m {
		switch {
		case len(raw) > 0 && raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, err
			}
			out[k] = s
		case len(raw) > 0 && strings.IndexByte("-0123456789tf", raw[0]) >= 0:
			out[k] = string(raw)
		default:
			return nil, fmt.Errorf("'%s.%s' must be a string, number or boolean", field, k)
		}
	}
	return out, nil
}

// send asks the host to make the request; its result, {status, headers,
// body, url}, is the output as it is.
func send(r request) (any, error) {
	var out json.RawMessage
	if err := guest.Call("http.request", r, &out); err != nil {
		return nil, err
	}
	return out, nil
}
