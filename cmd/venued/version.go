package main

import (
	"fmt"
	"runtime/debug"

	"github.com/gridvenue/venue/runtime"
)

// isVersion reports whether args ask for the version: venued version, or
// --version (-version) as the only argument.
func isVersion(args []string) bool {
	return len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version")
}

// versionText is what venued version prints: the release, and from the
// build, the commit it was built from (with "+changes" when the tree had
// uncommitted ones) and the Go release, so that an operator upgrading
// several nodes can tell which build each one runs.
func versionText(info *debug.BuildInfo, ok bool) string {
	s := "venued " + runtime.Release
	if !ok {
		return s + "\n"
	}
	var rev, modified string
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && modified == "true" {
		rev += "+changes"
	}
	if rev != "" {
		s += " (commit " + rev + ")"
	}
	return fmt.Sprintf("%s, built with %s\n", s, info.GoVersion)
}
