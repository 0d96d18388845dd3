package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ name, display, toolName, want string }{
		{"adapter colon", "core:read", "", "core_read"},
		{"camel case", "agent:cancelTask", "", "agent_cancel_task"},
		{"three parts", "mcp:server:add", "", "mcp_server_add"},
		{"explicit toolName wins", "grid:jobResult", "grid_job_result", "grid_job_result"},
		{"kebab", "agent:from-skills", "", "agent_from_skills"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToolName(&venue.Operation{Name: tc.display, ToolName: tc.toolName}); got != tc.want {
				t.Fatalf("ToolName(%q) = %q, want %q", tc.display, got, tc.want)
			}
		})
	}
}

func TestOutputResult(t *testing.T) {
	for _, tc := range []struct{ name, out, wantStructured string }{
		{"object kept", `{"a":1}`, `{"a":1}`},
		{"array wrapped", `[1,2]`, `{"result":[1,2]}`},
		{"string wrapped", `"hi"`, `{"result":"hi"}`},
		{"null wrapped", ``, `{"result":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := outputResult(json.RawMessage(tc.out))
			got, _ := json.Marshal(res.StructuredContent)
			if string(got) != tc.wantStructured || res.IsError {
				t.Fatalf("structured = %s, want %s", got, tc.wantStructured)
			}
		})
	}
}

func TestInputSchema(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"none", ``, `{"type":"object"}`},
		{"not an object schema", `{"properties":{"a":{}}}`, `"type":"object"`},
		{"garbage", `[1]`, `{"type":"object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(inputSchema(json.RawMessage(tc.in))); !strings.Contains(got, tc.want) {
				t.Fatalf("inputSchema(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzSnake checks that tool-name reading never panics, keeps UTF-8
// valid, and is idempotent, since incoming names are looked up both as sent
// and in snake_case.
func FuzzSnake(f *testing.F) {
	for _, s := range []string{"core:read", "agent:cancelTask", "A/B-c.d e", "ÄÖ:Ü", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := snake(s)
		if !utf8.ValidString(got) || snake(got) != got {
			t.Fatalf("snake(%q) = %q, snake again = %q", s, got, snake(got))
		}
	})
}
