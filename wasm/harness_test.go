package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// harness is a real engine over a temporary SQLite store whose "wasm"
// family runs the test guests through Host.Uploaded, each at
// v/test/wasm/<guest>, and whose "tb" family runs the Go reactor through
// Host.Builtin (v/test/tb/add, adapter "tb:add").
type harness struct {
	*runtime.Engine
	host  *Host
	alice context.Context
	bob   context.Context
	logs  *logSink
}

// mustHarness builds a harness with the given guests (names under
// testdata). The host's compile cache lives under os.TempDir, so only the
// first run of the suite pays for compiling.
func mustHarness(t *testing.T, cfg Config, rcfg runtime.Config, guests ...string) *harness {
	t.Helper()
	return mustHarnessWith(t, cfg, rcfg, nil, guests...)
}

// mustHarnessWith is mustHarness with modules of raw bytes besides, by
// name: each is the operation v/test/wasm/<name>.
func mustHarnessWith(t *testing.T, cfg Config, rcfg runtime.Config, raw map[string][]byte, guests ...string) *harness {
	t.Helper()
	ctx := context.Background()
	if cfg.CacheDir == "" {
		cfg.CacheDir = filepath.Join(os.TempDir(), "venue-wasm-cache")
	}
	host, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close(ctx) })
	modules := map[string][]byte{}
	for name, b := range raw {
		modules["v/test/wasm/"+name] = b
	}
	for _, g := range guests {
		path := "v/test/wasm/" + g
		modules[path] = mustGuest(t, g)
		// "wasm:<guest>" runs as "wasm" does, and must be held to the same
		// rules for uploaded code (an audit's "wasm:upper" escaped them).
		rcfg.Catalog = append(rcfg.Catalog, entry(path, g, "wasm:"+g))
		if _, err := host.Compile(ctx, modules[path]); err != nil {
			t.Fatalf("compile %s: %v", g, err)
		}
	}
	for name := range raw {
		rcfg.Catalog = append(rcfg.Catalog, entry("v/test/wasm/"+name, name, "wasm:"+name))
	}
	builtin, err := host.Builtin(mustGuest(t, "goreactor"))
	if err != nil {
		t.Fatal(err)
	}
	rcfg.Catalog = append(rcfg.Catalog, entry("v/test/tb/add", "builtin add", "tb:add"))
	uploaded := host.Uploaded(func(_ context.Context, _ *runtime.Env, op *venue.Operation) ([]byte, error) {
		if b, ok := modules[op.Path]; ok {
			return b, nil
		}
		return nil, venue.Errorf(venue.ENOTFOUND, "no module for %s", op.Path)
	})
	st, err := sql.Open(ctx, "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &logSink{}
	eng, err := runtime.New(ctx, rcfg, runtime.Deps{Store: st, Logger: slog.New(logs),
		Executors: map[string]runtime.Executor{"wasm": uploaded, "tb": builtin},
		Checkers:  map[string]runtime.ModuleChecker{"wasm": host}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return &harness{Engine: eng, host: host, logs: logs,
		alice: venue.WithCaller(ctx, venue.Caller{DID: "did:key:alice"}),
		bob:   venue.WithCaller(ctx, venue.Caller{DID: "did:key:bob"})}
}

func entry(path, name, adapter string) runtime.CatalogEntry {
	meta := fmt.Sprintf(`{"name":%q,"operation":{"adapter":%q,"input":{"type":"object"}}}`, name, adapter)
	return runtime.CatalogEntry{Path: path, Meta: json.RawMessage(meta)}
}

// run invokes op as the caller in ctx and waits for the job to end.
func (h *harness) run(t *testing.T, ctx context.Context, op, input string) *venue.Job {
	t.Helper()
	j, err := h.Invoke(ctx, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: time.Minute})
	if err != nil {
		t.Fatalf("invoke %s: %v", op, err)
	}
	if !j.Status.Terminal() {
		t.Fatalf("%s %s did not end: %s", op, input, j.Status)
	}
	return j
}

// mustComplete runs op and returns its output, failing unless it completed.
func (h *harness) mustComplete(t *testing.T, ctx context.Context, op, input string) string {
	t.Helper()
	j := h.run(t, ctx, op, input)
	if j.Status != venue.StatusComplete {
		t.Fatalf("%s %s: status %s, error %q", op, input, j.Status, j.Error)
	}
	return string(j.Output)
}

// mustFail runs op and returns its error, failing unless the job failed.
func (h *harness) mustFail(t *testing.T, ctx context.Context, op, input string) string {
	t.Helper()
	j := h.run(t, ctx, op, input)
	if j.Status != venue.StatusFailed {
		t.Fatalf("%s %s: status %s (output %s), want FAILED", op, input, j.Status, j.Output)
	}
	return j.Error
}

func wantContains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

// logSink is a slog.Handler keeping the records logged, for assertions.
type logSink struct {
	mu   sync.Mutex
	recs []string
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler       { return s }
func (s *logSink) WithGroup(string) slog.Handler            { return s }

func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	line := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		line += " " + a.String()
		return true
	})
	s.mu.Lock()
	s.recs = append(s.recs, line)
	s.mu.Unlock()
	return nil
}

func (s *logSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.recs, "\n")
}
