package main

import (
	"strconv"
	"strings"
)

// gcMemoryLimit is the soft memory limit for Go's collector when the
// operator set none (GOMEMLIMIT): seven tenths of the container's memory
// limit (cgroup v2 memory.max, else v1 memory.limit_in_bytes), 0 when
// there is none. The venue runs its collector at GOGC=400 for throughput,
// so its heap may grow to five times what is live: a burst of large
// requests (16 echoes of 15 MB at once) then took 2.4 GB where 1.5 GB did
// with the limit, and a container's limit would kill the process first.
// Under the limit the collector works harder instead. The rest of the
// container's memory is for what Go does not manage (SQLite's pages).
func gcMemoryLimit(getenv func(string) string, readFile func(string) ([]byte, error)) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return 0
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := readFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's way of saying none
			return 0
		}
		return n / 10 * 7
	}
	return 0
}
