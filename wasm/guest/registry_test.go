package guest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The ABI glue runs only in a wasm host (ops/guest_test.go drives the
// built module through it); the dispatch and request building it relies
// on are tested here natively.

func init() {
	Register("t:echo", func(in json.RawMessage) (any, error) { return in, nil })
	Register("t:html", func(json.RawMessage) (any, error) { return map[string]string{"b": "<a&b>"}, nil })
	Register("t:fail", func(json.RawMessage) (any, error) { return nil, Errorf("bad %s", "input") })
	Register("t:panic", func(json.RawMessage) (any, error) { panic("boom") })
	Register("t:nojson", func(json.RawMessage) (any, error) { return func() {}, nil })
}

func TestRun(t *testing.T) {
	for _, tc := range []struct{ op, in, want, wantErr string }{
		{"t:echo", `{"a": [1, 2]}`, `{"a": [1, 2]}`, ""}, // a json.RawMessage goes out as it is
		{"t:html", `{}`, `{"b":"<a&b>"}`, ""},
		{"t:fail", `{}`, "", "bad input"},
		{"t:panic", `{}`, "", "operation t:panic panicked: boom"},
		{"t:nojson", `{}`, "", "output is not JSON: json: unsupported type: func()"},
		{"t:none", `{}`, "", "unknown operation t:none"},
	} {
		out, err := run(tc.op, []byte(tc.in))
		if got := errText(err); got != tc.wantErr || string(out) != tc.want {
			t.Errorf("run(%s, %s) = %s, %q; want %s, %q", tc.op, tc.in, out, got, tc.want, tc.wantErr)
		}
	}
}

// TestRun_UploadedAdapter checks that a module called by an adapter it
// does not register, as an uploaded module is (its metadata's
// operation.adapter), says what it registers and what to change.
func TestRun_UploadedAdapter(t *testing.T) {
	for _, op := range []string{"wasm", "wasm:hello"} {
		_, err := run(op, []byte(`{}`))
		for _, want := range []string{
			"unknown operation " + op + ": the module registers t:echo, t:fail, t:html",
			"it is called with its metadata's operation.adapter",
			`guest.Register("` + op + `", ...)`,
		} {
			if !strings.Contains(errText(err), want) {
				t.Errorf("run(%s) error = %q, want it to contain %q", op, errText(err), want)
			}
		}
	}
}

func TestRegister_Twice(t *testing.T) {
	RegisterForward("t:read", "lattice.read")
	for _, tc := range []struct {
		name     string
		register func()
	}{
		{"handler twice", func() { Register("t:echo", nil) }},
		{"forward twice", func() { RegisterForward("t:read", "lattice.read") }},
		{"forward over a handler", func() { RegisterForward("t:echo", "lattice.read") }},
		{"handler over a forward", func() { Register("t:read", nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("registering a name twice did not panic")
				}
			}()
			tc.register()
		})
	}
}

func TestAppendForward(t *testing.T) {
	for _, tc := range []struct{ name, in, want, wantErr string }{
		{"object", `{"path":"w/a"}`, `{"fn":"lattice.read","args":{"path":"w/a"}}`, ""},
		{"spaces around", " \n{}\t", `{"fn":"lattice.read","args":{}}`, ""},
		{"array", `[1]`, "", "input must be a JSON object"},
		{"empty", ``, "", "input must be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := appendForward([]byte("kept"), "lattice.read", []byte(tc.in))
			if errText(err) != tc.wantErr {
				t.Fatalf("appendForward(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			if err == nil && string(got) != "kept"+tc.want {
				t.Fatalf("appendForward(%q) = %s, want kept%s", tc.in, got, tc.want)
			}
		})
	}
}

func TestRequest(t *testing.T) {
	for _, tc := range []struct {
		args          any
		want, wantErr string
	}{
		{nil, `{"fn":"x.y"}`, ""},
		{map[string]any{}, `{"fn":"x.y"}`, ""},
		{map[string]any{"path": "w/a", "n": 1}, `{"fn":"x.y","n":1,"path":"w/a"}`, ""},
		{struct {
			Path string `json:"path"`
		}{"w/<a>"}, `{"fn":"x.y","path":"w/<a>"}`, ""},
		{json.RawMessage(`{ "a" : 1 }`), `{"fn":"x.y","a" : 1}`, ""},
		{[]int{1}, "", "arguments of x.y must be a JSON object, got [1]"},
	} {
		got, err := request("x.y", tc.args)
		if errText(err) != tc.wantErr || string(got) != tc.want {
			t.Errorf("request(%v) = %s, %q; want %s, %q", tc.args, got, errText(err), tc.want, tc.wantErr)
		}
	}
}

func TestCall_WithoutHost(t *testing.T) {
	var he *HostError
	err := Call("lattice.read", map[string]string{"path": "w/a"}, nil)
	if !errors.As(err, &he) || he.Fn != "lattice.read" {
		t.Errorf("Call outside a wasm host = %v, want a *HostError", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
