package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSplitUCANs(t *testing.T) {
	for _, tc := range []struct {
		name, args, input string
		ucans             []string
		bad               bool
	}{
		{"none", `{"path":"w"}`, `{"path":"w"}`, nil, false},
		{"taken out", `{"path":"w","ucans":["a.b.c"]}`, `{"path":"w"}`, []string{"a.b.c"}, false},
		{"taken out when spelled with an escape", `{"path":"w","uc\u0061ns":["a.b.c"]}`, `{"path":"w"}`, []string{"a.b.c"}, false},
		{"null", `{"ucans":null,"x":1}`, `{"x":1}`, nil, false},
		{"nested ones stay", `{"value":{"ucans":["t"]}}`, `{"value":{"ucans":["t"]}}`, nil, false},
		{"not a list", `{"ucans":"t"}`, ``, nil, true},
		{"not strings", `{"ucans":[1]}`, ``, nil, true},
		{"empty arguments", ``, ``, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input, ucans, err := splitUCANs([]byte(tc.args))
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v, want bad %v", err, tc.bad)
			}
			if !tc.bad && (string(input) != tc.input || !reflect.DeepEqual(ucans, tc.ucans)) {
				t.Fatalf("splitUCANs(%s) = %s, %v; want %s, %v", tc.args, input, ucans, tc.input, tc.ucans)
			}
		})
	}
}

func TestRemoteResult(t *testing.T) {
	for _, tc := range []struct {
		name, out, want string
		ok              bool
	}{
		{"image and structured content kept",
			`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAEC","mimeType":"image/png"}],"structuredContent":{"w":1}}`,
			`{"content":[{"type":"text","text":"hi"},{"type":"image","mimeType":"image/png","data":"AAEC"}],"structuredContent":{"w":1}}`, true},
		{"no structured content", `{"content":[{"type":"text","text":"hi"}]}`, `{"content":[{"type":"text","text":"hi"}]}`, true},
		{"empty content", `{"content":[]}`, `{"content":[]}`, true},
		{"structured content not an object is dropped", `{"content":[],"structuredContent":[1]}`, `{"content":[]}`, true},
		{"isError is never passed on", `{"content":[],"isError":true}`, `{"content":[]}`, true},
		{"no content: not a tool result", `{"value":1}`, ``, false},
		{"an unknown part type", `{"content":[{"type":"hologram"}]}`, ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := remoteResult([]byte(tc.out))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			got, _ := json.Marshal(res)
			if string(got) != tc.want {
				t.Fatalf("got %s\nwant %s", got, tc.want)
			}
		})
	}
}
