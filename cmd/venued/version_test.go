package main

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"the command", []string{"version"}, true},
		{"the flag", []string{"--version"}, true},
		{"the flag, one dash", []string{"-version"}, true},
		{"a config file after it is no version", []string{"version", "venue.json"}, false},
		{"a config file", []string{"venue.json"}, false},
		{"nothing", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isVersion(tc.args); got != tc.want {
				t.Fatalf("isVersion(%q) = %v", tc.args, got)
			}
		})
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build information", nil, false, "venued 0.5.0\n"},
		{"built outside a repository", &debug.BuildInfo{GoVersion: "go1.26.8"}, true, "venued 0.5.0, built with go1.26.8\n"},
		{"built from a commit", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "bf210ce0123456789abcdef"}, {Key: "vcs.modified", Value: "false"}}}, true,
			"venued 0.5.0 (commit bf210ce01234), built with go1.26.8\n"},
		{"built from a changed tree", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "bf210ce0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}, true,
			"venued 0.5.0 (commit bf210ce01234+changes), built with go1.26.8\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.info, tc.ok); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
