package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestWasm_CoreOpsAgreeWithValues checks the built-in core operations
// (running in the Wasm sandbox) end to end, and that they and the
// /api/v1/values endpoints read the lattice alike.
func TestWasm_CoreOpsAgreeWithValues(t *testing.T) {
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		steps := []struct{ op, input, want string }{
			{"v/ops/core/write", `{"path": "w/notes/today", "value": {"todo": ["test", "ship"]}}`, `{"written":true}`},
			{"v/ops/core/append", `{"path": "w/notes/today/todo", "value": "rest"}`, `{"appended":true,"index":2}`},
			{"v/ops/core/read", `{"path": "w/notes/today/todo/2"}`, `"value":"rest"`},
			{"v/ops/core/list", `{"path": "w/notes"}`, `"keys":["today"]`},
			{"v/ops/core/slice", `{"path": "w/notes/today/todo", "offset": 1}`, `"values":["ship","rest"]`},
			{"v/ops/core/copy", `{"from": "w/notes/today", "to": "w/archive/day1"}`, `{"copied":true}`},
			{"v/ops/core/delete", `{"path": "w/notes/today/todo/0"}`, `{"deleted":true}`},
			{"v/ops/core/inspect", `{"paths": ["w/archive/day1", "w/nothing"], "budget": 200}`, `w/archive/day1: {todo:`},
			{"v/ops/core/inspect", `{"path": "w/notes"}`, `'paths' must be a string or array of strings`},
			{"v/ops/core/copy", `{"to": "w/x"}`, `'from' is required`},
			{"v/ops/core/write", `{"path": "v/ops/mine", "value": 1}`, `The venue namespace v/ is read-only`},
		}
		for _, s := range steps {
			if r := c.run(t, s.op, s.input); !strings.Contains(string(r.body), s.want) {
				t.Fatalf("%s %s: %d %s, want %s", s.op, s.input, r.status, r.body, s.want)
			}
		}
		job := invokeJob(t, c, `{"operation": "v/test/ops/echo", "input": {"n": 1}, "wait": true}`)
		c.do(t, "PUT", "/api/v1/secrets/TOKEN", `"tok-abcdef-123"`)
		var asset string
		c.do(t, "POST", "/api/v1/assets", `{"name": "doc"}`).json(t, &asset)
		for _, path := range []string{"w/notes", "w/notes/today/todo", "w/archive", "w", "v/info/did", "v/ops/core/read/name",
			"j/" + job.ID, "j/" + job.ID + "/output", "s", "s/TOKEN", "a/" + strings.TrimPrefix(asset, "0x"), "w/absent", "o"} {
			t.Run("core:read and values/read agree on "+path, func(t *testing.T) {
				var op, rest struct {
					Exists bool            `json:"exists"`
					Value  json.RawMessage `json:"value"`
				}
				c.run(t, "v/ops/core/read", `{"path": "`+path+`"}`).json(t, &op)
				c.do(t, "GET", "/api/v1/values/read?path="+url.QueryEscape(path), nil).json(t, &rest)
				if op.Exists != rest.Exists || !jsonSame(op.Value, rest.Value) {
					t.Fatalf("core:read %v %s, values/read %v %s", op.Exists, op.Value, rest.Exists, rest.Value)
				}
				if strings.Contains(string(op.Value), "tok-abcdef") {
					t.Fatal("a read returned a secret value")
				}
			})
		}
	})
}

// TestWasm_HTTPWithSecrets calls a loopback stand-in for a third-party API
// through http:get and http:post with every credential shape, and checks
// the service got the credentials while no response or record shows them.
func TestWasm_HTTPWithSecrets(t *testing.T) {
	var seen http.Header
	var seenPath string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, seenPath = r.Header.Clone(), r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok": true}`))
	}))
	defer api.Close()
	host := strings.TrimPrefix(api.URL, "http://")
	allow := func(c *Config) { c.AllowHosts = []string{host} }
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		c.do(t, "PUT", "/api/v1/secrets/GITHUB_TOKEN", `"ghp-secret-0001"`)
		c.do(t, "PUT", "/api/v1/secrets/ATLASSIAN_AUTH", `"Basic c2VjcmV0LTAwMDI="`)
		c.do(t, "PUT", "/api/v1/secrets/BOT", `"bot-secret-0003"`)
		for _, tc := range []struct {
			name, op, input string
			check           func() bool
		}{
			{"bearer", "v/ops/http/get", `{"url": "` + api.URL + `/user", "bearerSecret": "s/GITHUB_TOKEN"}`,
				func() bool { return seen.Get("Authorization") == "Bearer ghp-secret-0001" }},
			{"header", "v/ops/http/post", `{"url": "` + api.URL + `/issue", "body": {"title": "x"}, "secretHeaders": {"Authorization": "s/ATLASSIAN_AUTH"}}`,
				func() bool { return seen.Get("Authorization") == "Basic c2VjcmV0LTAwMDI=" }},
			{"URL placeholder", "v/ops/http/get", `{"url": "` + api.URL + `/bot{s/BOT}/getMe"}`,
				func() bool { return seenPath == "/botbot-secret-0003/getMe" }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "`+tc.op+`", "input": `+tc.input+`, "wait": true}`)
				if r.status != 201 || !strings.Contains(string(r.body), `"status":"COMPLETE"`) || !tc.check() {
					t.Fatalf("%d %s; service saw %v %s", r.status, r.body, seen, seenPath)
				}
				if strings.Contains(string(r.body), "secret-000") {
					t.Fatalf("a secret value is in the job record: %s", r.body)
				}
			})
		}
		t.Run("a private address not allowed is refused", func(t *testing.T) {
			r := c.run(t, "v/ops/http/get", `{"url": "http://169.254.169.254/latest/meta-data/"}`)
			if !strings.Contains(string(r.body), "URL targets a private/internal address: 169.254.169.254") {
				t.Fatalf("%d %s", r.status, r.body)
			}
		})
	}, allow)
}

func TestWasm_SchemaJSONAndSecretOps(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	for _, tc := range []struct{ op, input, want string }{
		{"v/ops/schema/infer", `{"value": {"name": "Ada", "age": 36, "tags": ["x"]}}`, `"age":{"type":"integer"}`},
		{"v/ops/schema/validate", `{"schema": {"type": "object", "required": ["a"]}, "value": {}}`, `"valid":false`},
		{"v/ops/json/merge", `{"values": [{"a": {"b": 1}}, {"a": {"c": 2}}]}`, `{"result":{"a":{"b":1,"c":2}}}`},
		{"v/ops/json/select", `{"key": "b", "cases": {"a": 1, "b": 2}, "default": 0}`, `{"result":2}`},
		{"v/ops/json/assoc", `{"target": {}, "path": "a/b", "value": 1}`, `{"result":{"a":{"b":1}}}`},
		{"v/ops/json/cond", `{"cases": [{"if": 0, "then": "no"}, {"if": "y", "then": "yes"}], "default": "none"}`, `{"result":"yes"}`},
	} {
		if r := c.run(t, tc.op, tc.input); r.status != 200 || !strings.Contains(string(r.body), tc.want) {
			t.Fatalf("%s: %d %s, want %s", tc.op, r.status, r.body, tc.want)
		}
	}
	r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/ops/secret/set", "input": {"key": "K1", "value": "value-to-hide"}, "wait": true}`)
	if !strings.Contains(string(r.body), `"value":"HIDDEN"`) || strings.Contains(string(r.body), "value-to-hide") {
		t.Fatalf("%s", r.body)
	}
	var names struct{ Items []string }
	c.do(t, "GET", "/api/v1/secrets", nil).json(t, &names)
	if len(names.Items) != 1 || names.Items[0] != "K1" {
		t.Fatalf("%+v", names)
	}
}

func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
