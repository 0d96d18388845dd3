package venue_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImports_StandardLibraryOnly keeps the root package free of heavy
// dependencies: every other package imports it.
func TestImports_StandardLibraryOnly(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	cmd := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	if want := []string{"github.com/gridvenue/venue"}; !slices.Equal(got, want) {
		t.Errorf("non-standard dependencies of the root package = %q, want only %q", got, want)
	}
}
