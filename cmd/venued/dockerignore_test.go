package main

import (
	"os"
	"path"
	"strings"
	"testing"
)

// dockerIgnored reports whether the .dockerignore patterns exclude name
// from the build context, as Docker reads them: patterns are relative to
// the root (a pattern without a slash matches only there), ** matches any
// number of directories, and an excluded directory excludes all within.
func dockerIgnored(patterns []string, name string) bool {
	ignored := false
	for _, p := range patterns {
		negate := strings.HasPrefix(p, "!")
		p = strings.Trim(strings.TrimPrefix(p, "!"), "/")
		if matchSegments(strings.Split(p, "/"), strings.Split(name, "/")) {
			ignored = !negate
		}
	}
	return ignored
}

// matchSegments matches a pattern against a path or any of its parents.
func matchSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return true // the pattern matched a parent directory
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], segs[0])
	return ok && matchSegments(pat[1:], segs[1:])
}

// TestDockerignore_KeepsBuildOutputsOut: what the build makes or a local run
// leaves behind (binaries, the built Wasm module, npm installs, databases,
// logs) must not reach the image's build context; the sources must.
func TestDockerignore_KeepsBuildOutputsOut(t *testing.T) {
	b, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	for _, name := range []string{"bin/venued", ".git/HEAD", "ops/build/builtin.wasm", "venued", "venued.log", "walkthrough.log",
		"tools/webcheck/node_modules/x/index.js", "tools/mcpcheck/node_modules/x/index.js", "tools/authcheck/node_modules/x/index.js",
		"venue.db", "venue.db-wal", "venue.db-shm", "data/venue.db", "data/venue.db-journal", "cmd/venued/venued.test", "cpu.prof",
		"examples/wordcount-c/wordcount.wasm"} {
		if !dockerIgnored(patterns, name) {
			t.Errorf("%s would be sent to docker build", name)
		}
	}
	for _, name := range []string{"go.mod", "go.sum", "Makefile", "cmd/venued/main.go", "ops/core/read.json", "ops/builtin/main.go",
		"api/rest/docsui/assets/redoc/redoc.standalone.js", "sql/migrations/0001_init.sql", "tools/webcheck/package.json"} {
		if dockerIgnored(patterns, name) {
			t.Errorf("%s, needed to build, is ignored", name)
		}
	}
}

// TestDockerfile_NamesAPublicURL: the image listens on every interface, so
// without a url its DID would name no reachable host; it sets a default
// and says how to set the real one.
func TestDockerfile_NamesAPublicURL(t *testing.T) {
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "VENUE_LISTEN=0.0.0.0:8080") || !strings.Contains(s, "VENUE_URL=http://localhost:8080") ||
		!strings.Contains(s, "-e VENUE_URL=") {
		t.Fatal("the Dockerfile listens on 0.0.0.0 without a default VENUE_URL, or does not show how to set it")
	}
	readme, _ := os.ReadFile("../../README.md")
	if !strings.Contains(string(readme), "docker run -p 8080:8080 -v venue:/data -e VENUE_URL=") {
		t.Fatal("README's docker line does not set VENUE_URL")
	}
}
