package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_DepthIsBounded: the venue keeps JSON at most 1000 levels deep
// wherever it takes some in (every reader wraps what it reads, and
// encoding/json stops at 10000), and takes 1000 levels.
func TestEngine_DepthIsBounded(t *testing.T) {
	h := mustEngine(t)
	nest := func(n int) json.RawMessage {
		return json.RawMessage(`{"v":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	for _, tc := range []struct {
		name string
		do   func(json.RawMessage) error
		what string
	}{
		{"input", func(v json.RawMessage) error {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: v})
			return err
		}, "Input"},
		{"lattice value", func(v json.RawMessage) error { return h.Write(h.alice, "w/deep", v) }, "Value"},
		{"asset metadata", func(v json.RawMessage) error { _, err := h.RegisterAsset(h.alice, v); return err }, "Asset metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(nest(1000)); err != nil {
				t.Fatalf("1000 levels: %v", err)
			}
			err := tc.do(nest(1001))
			wantCode(t, err, venue.EINVALID)
			if want := tc.what + " nests more than 1000 levels deep, more than the venue keeps"; err.Error() != want {
				t.Fatalf("error %q, want %q", err, want)
			}
		})
	}
}
