package llm

import "testing"

func TestSnake(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"display name", "core:read", "core_read"},
		{"camel case", "agent:cancelTask", "agent_cancel_task"},
		{"an old tool name", "agent_cancelTask", "agent_cancel_task"},
		{"already snake", "agent_cancel_task", "agent_cancel_task"},
		{"kebab and slashes", "grid/job-result", "grid_job_result"},
		{"framework tool", "complete_task", "complete_task"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := snake(tc.in); got != tc.want {
				t.Fatalf("snake(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
