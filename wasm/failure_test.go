package wasm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestHost_RefusalKeepsItsCode: a guest that passes on the host's refusal
// of a call (as every built-in operation does) ends its job with the
// refusal's code, so that a capability denied inside Wasm is the same
// REJECTED job, and the same 403 or 401 from /run, as one denied by a
// native operation. A guest cannot claim a code the host did not give it
// in that call.
func TestHost_RefusalKeepsItsCode(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{Access: runtime.AccessPolicy{Anonymous: []string{"invoke"}}}, "goreactor", "gocommand")
	anon := venue.WithCaller(context.Background(), h.PublicCaller())
	readBob := `{"fn":"lattice.read","path":"did:key:bob/w/x"}`
	writeOwn := `{"fn":"lattice.write","path":"w/x","value":1}`
	bad := `{"fn":"lattice.read"}`
	denied := "Capability denied: did:key:alice holds no crud/read on did:key:bob/w/x"
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		op, in   string
		status   venue.JobStatus
		code     string
		errorHas string
	}{
		{"a refusal passed on verbatim", h.alice, "goreactor", relay("", readBob), venue.StatusRejected, venue.EFORBIDDEN, denied},
		{"a refusal passed on with context", h.alice, "goreactor", relay("reading bob: ", readBob), venue.StatusRejected, venue.EFORBIDDEN, "reading bob: " + denied},
		{"the anonymous caller's refusal", anon, "goreactor", relay("", writeOwn), venue.StatusRejected, venue.EUNAUTHORIZED, "anonymous callers may not crud/write"},
		{"a refusal from a command module", h.alice, "gocommand", `{"do":"relay","text":` + quote(readBob) + `}`, venue.StatusRejected, venue.EFORBIDDEN, denied},
		{"a call made wrongly stays the guest's failure", h.alice, "goreactor", relay("", bad), venue.StatusFailed, venue.EINVALID, `lattice.read: "path" is required`},
		{"a forged refusal without a call", h.alice, "goreactor", `{"do":"fail","text":` + quote(denied) + `}`, venue.StatusFailed, venue.EINVALID, denied},
		{"another message after a refusal", h.alice, "goreactor", `{"do":"relay","text":"it went wrong","reqs":[` + readBob + `,` + readBob + `]}`, venue.StatusFailed, venue.EINVALID, "it went wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := "v/test/wasm/" + tc.op
			j := h.run(t, tc.ctx, op, tc.in)
			if j.Status != tc.status || !strings.Contains(j.Error, tc.errorHas) {
				t.Fatalf("%s %q, want %s with %q", j.Status, j.Error, tc.status, tc.errorHas)
			}
			_, err := h.Run(tc.ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(tc.in)})
			if venue.ErrorCode(err) != tc.code {
				t.Fatalf("Run: %v (code %s), want code %s", err, venue.ErrorCode(err), tc.code)
			}
		})
	}
}

// relay is the Go reactor's input to make req and fail, on its refusal,
// with prefix and the host's words.
func relay(prefix, req string) string {
	return `{"do":"relay","text":` + quote(prefix) + `,"reqs":[` + req + `]}`
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOutOfMemory: a guest is taken to have run out of memory when the Go
// runtime says so, or when it dies silently near the limit; a guest that
// says why it failed is believed, whatever its words hold.
func TestOutOfMemory(t *testing.T) {
	const limit = 32 << 20
	for _, tc := range []struct {
		name   string
		stderr string
		mem    uint32
		want   bool
	}{
		{"Go's fatal error", "fatal error: out of memory\n\ngoroutine 1 [running]:\n", 4 << 20, true},
		{"Go's runtime line", "runtime: out of memory: cannot allocate 4194304-byte block\n", 30 << 20, true},
		{"silent, near the limit", "", 26 << 20, true},
		{"silent, far from it", "", 4 << 20, false},
		{"its own message, near the limit", "assertion failed: index 7 out of range\n", 26 << 20, false},
		{"a message quoting the words", "no entry named 'out of memory' in the table\n", 2 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outOfMemory(tc.stderr, tc.mem, limit); got != tc.want {
				t.Fatalf("outOfMemory = %v, want %v", got, tc.want)
			}
		})
	}
}
