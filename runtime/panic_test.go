package runtime_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_PanicFailsTheJob: an executor that panics (an LLM client
// given a stream it did not expect did) failed nothing but took the venue
// process down with every job in it. Its job fails instead, and the
// engine goes on.
func TestEngine_PanicFailsTheJob(t *testing.T) {
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	st := openFile(t, filepath.Join(t.TempDir(), "venue.db"))
	meta := json.RawMessage(`{"name": "Boom", "operation": {"adapter": "boom:go", "input": {"type": "object"}}}`)
	boom := func(ctx context.Context, _ json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
		var blocks []int
		i := len(blocks) - 1
		return json.Marshal(blocks[i]) // index out of range [-1]
	}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true, Catalog: []runtime.CatalogEntry{{Path: "v/ops/boom/go", Meta: meta}}},
		runtime.Deps{Store: st, Executors: map[string]runtime.Executor{"boom": runtime.OpFuncs{"go": boom}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close(); st.Close() }()
	for range 2 {
		rec, err := e.Invoke(alice, runtime.InvokeRequest{Operation: "v/ops/boom/go", Wait: 5 * time.Second})
		if err != nil || rec.Status != venue.StatusFailed || !strings.Contains(rec.Error, "failed unexpectedly") {
			t.Fatalf("%v %+v", err, rec)
		}
	}
}
