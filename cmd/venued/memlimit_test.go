package main

import (
	"errors"
	"io/fs"
	"testing"
)

func TestGCMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    string
		v2, v1 string // "" is no such file
		want   int64
	}{
		{"cgroup v2 with a limit", "", "2147483648\n", "", 2147483648 / 10 * 7},
		{"cgroup v2 without one", "", "max\n", "", 0},
		{"cgroup v1 with a limit", "", "", "1073741824\n", 1073741824 / 10 * 7},
		{"cgroup v1 without one", "", "", "9223372036854771712\n", 0},
		{"no cgroup files", "", "", "", 0},
		{"the operator's own GOMEMLIMIT", "3GiB", "2147483648\n", "", 0},
		{"an unreadable number", "", "lots\n", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.env
				}
				return ""
			}
			readFile := func(path string) ([]byte, error) {
				content := map[string]string{"/sys/fs/cgroup/memory.max": tc.v2, "/sys/fs/cgroup/memory/memory.limit_in_bytes": tc.v1}[path]
				if content == "" {
					return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("no such file")}
				}
				return []byte(content), nil
			}
			if got := gcMemoryLimit(getenv, readFile); got != tc.want {
				t.Fatalf("gcMemoryLimit = %d, want %d", got, tc.want)
			}
		})
	}
}
