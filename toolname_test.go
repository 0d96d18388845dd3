package venue

import "testing"

func TestSnakeCase(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"display name", "core:read", "core_read"},
		{"camel case", "agent:cancelTask", "agent_cancel_task"},
		{"kebab and dots", "get-sum.v2", "get_sum_v2"},
		{"bridged camel case", "everything_getTinyImage", "everything_get_tiny_image"},
		{"digit then upper", "v2Tool", "v2_tool"},
		{"already snake", "grid_job_result", "grid_job_result"},
		{"an old tool name", "agent_cancelTask", "agent_cancel_task"},
		{"kebab and slashes", "grid/job-result", "grid_job_result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SnakeCase(tc.in); got != tc.want {
				t.Fatalf("SnakeCase(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
