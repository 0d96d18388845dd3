package wasm

import (
	"strings"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// TestCommand_StderrLogged checks that what a command that succeeds writes
// on stderr reaches the job's log, tagged with the job, instead of
// vanishing: a guest's debug prints are all its author has.
func TestCommand_StderrLogged(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "gocommand")
	if out := h.mustComplete(t, h.alice, "v/test/wasm/gocommand", `{"do":"stderr","text":"debug: got here"}`); out != `{"ok":true}` {
		t.Fatalf("output %s", out)
	}
	logs := h.logs.text()
	var line string
	for l := range strings.Lines(logs) {
		if strings.Contains(l, "stderr: debug: got here") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("stderr of a command that succeeded is not logged; logs:\n%s", logs)
	}
	wantContains(t, "log line", line, "INFO", "job=")
	// A failing command's stderr is its error, not a log line.
	if msg := h.mustFail(t, h.alice, "v/test/wasm/gocommand", `{"do":"fail","text":"refused loudly"}`); msg != "refused loudly" {
		t.Errorf("error %q, want %q", msg, "refused loudly")
	}
	if strings.Contains(h.logs.text(), "stderr: refused loudly") {
		t.Error("a failed command's stderr was logged as well as made its error")
	}
}
