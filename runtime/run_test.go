package runtime_test

import (
	"encoding/json"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_RunMapsFailures: Run hands a job's failure back with the code
// the operation gave it, so /run answers a capability denial 403 (401 for
// the anonymous caller), an agent conflict 409, a bad input 400, a
// missing thing 404 and a value past a limit 413, however the job ended; anything else is the venue's
// own failure.
func TestEngine_RunMapsFailures(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct {
		name, input, code, msg string
		status                 venue.JobStatus
	}{
		{"a capability denial", `{"code": "forbidden", "message": "Capability denied: x"}`, venue.EFORBIDDEN, "Capability denied: x", venue.StatusRejected},
		{"an anonymous capability denial", `{"code": "unauthorized", "message": "Capability denied: anonymous"}`, venue.EUNAUTHORIZED, "Capability denied: anonymous", venue.StatusRejected},
		{"a rejection", `{"reject": true, "message": "no"}`, venue.EFORBIDDEN, "no", venue.StatusRejected},
		{"a conflict", `{"code": "conflict", "message": "busy"}`, venue.ECONFLICT, "Operation failed: busy", venue.StatusFailed},
		{"a bad input", `{"message": "bad"}`, venue.EINVALID, "Operation failed: bad", venue.StatusFailed},
		{"a missing thing", `{"code": "not_found", "message": "gone"}`, venue.ENOTFOUND, "Operation failed: gone", venue.StatusFailed},
		{"a value too large", `{"code": "too_large", "message": "Value at w/v would grow past the limit"}`, venue.ETOOLARGE, "Operation failed: Value at w/v would grow past the limit", venue.StatusFailed},
		{"anything else", `{"code": "unavailable", "message": "down"}`, venue.EINTERNAL, "Operation failed: down", venue.StatusFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Run(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/error", Input: json.RawMessage(tc.input)})
			if venue.ErrorCode(err) != tc.code || venue.ErrorMessage(err) != tc.msg {
				t.Fatalf("Run: %q (code %s), want %q (code %s)", venue.ErrorMessage(err), venue.ErrorCode(err), tc.msg, tc.code)
			}
			if j := h.invoke(t, "v/test/ops/error", tc.input, time.Minute); j.Status != tc.status {
				t.Fatalf("the job is %s, want %s", j.Status, tc.status)
			}
		})
	}
}
