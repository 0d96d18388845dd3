//go:build unix

package main

import "syscall"

// openFiles is the process's limit of open files (which Go raises to the
// hard limit at start), or 0 if it cannot be read.
func openFiles() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
