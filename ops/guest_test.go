package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/wasm"
)

// The guest tests run the built module (make ops) as the venue does: a real
// engine over a temporary SQLite store, the real Wasm host executing
// ops.Module() for every family of ops.Entries() (as cmd/venued wires it),
// and an HTTP server on loopback for the http family. Every case is an
// invocation whose job record is checked, with the lattice, secrets and
// HTTP requests it touches seen through the engine and the server.

// uncheckedRoot is where the stack serves a twin of every catalog entry
// without its input schema, so that cases can reach the checks the guest
// makes itself on inputs the catalog schema already refuses.
const uncheckedRoot = "v/test/unchecked/"

// stack is the venue's real engine running the built-in operations.
type stack struct {
	*runtime.Engine
	alice context.Context // the caller every case runs as
	web   *webServer      // the server the http cases call
}

// mustStack builds a stack. The host's compile cache lives under
// os.TempDir, so only the first run pays for compiling the module (about a
// second, twenty under the race detector).
func mustStack(tb testing.TB) *stack {
	tb.Helper()
	ctx := context.Background()
	host, err := wasm.New(ctx, wasm.Config{CacheDir: filepath.Join(os.TempDir(), "venue-test-wazero")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { host.Close(ctx) })
	exec, err := host.Builtin(Module())
	if err != nil {
		tb.Fatalf("load the built module (make ops builds it): %v", err)
	}
	// Each case waits a minute for its job, which would also wait for the
	// module's compile: on a busy machine under -race, most of that.
	if _, err := host.Compile(ctx, Module()); err != nil {
		tb.Fatal(err)
	}
	catalog, execs := mustCatalog(tb, exec)
	st, err := sql.Open(ctx, "", sql.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	eng, err := runtime.New(ctx,
		runtime.Config{Catalog: catalog, Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}},
		runtime.Deps{Store: st, Executors: execs, Checkers: map[string]runtime.ModuleChecker{"wasm": host}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return &stack{Engine: eng, alice: venue.WithCaller(ctx, venue.Caller{DID: "did:key:alice"}), web: mustWebServer(tb)}
}

// mustCatalog returns the built-in entries, their unchecked twins and an
// entry for an operation the module lacks (core:nope), with exec serving
// every family, as cmd/venued registers it.
func mustCatalog(tb testing.TB, exec runtime.Executor) ([]runtime.CatalogEntry, map[string]runtime.Executor) {
	tb.Helper()
	entries, err := Entries()
	if err != nil {
		tb.Fatal(err)
	}
	catalog := slices.Clone(entries)
	execs := map[string]runtime.Executor{}
	for _, en := range entries {
		execs[strings.Split(en.Path, "/")[2]] = exec
		meta, err := withoutInputSchema(en.Meta)
		if err != nil {
			tb.Fatalf("%s: %v", en.Path, err)
		}
		catalog = append(catalog, runtime.CatalogEntry{Path: unchecked(en.Path), Meta: meta})
	}
	nope := `{"name":"Nope","operation":{"adapter":"core:nope","input":{"type":"object"}}}`
	catalog = append(catalog, runtime.CatalogEntry{Path: uncheckedRoot + "core/nope", Meta: json.RawMessage(nope)})
	return catalog, execs
}

// unchecked is the path of the twin of the catalog entry at path.
func unchecked(path string) string { return uncheckedRoot + strings.TrimPrefix(path, "v/ops/") }

// withoutInputSchema returns meta with operation.input {"type":"object"}.
func withoutInputSchema(meta json.RawMessage) (json.RawMessage, error) {
	var m, op map[string]json.RawMessage
	if err := json.Unmarshal(meta, &m); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(m["operation"], &op); err != nil {
		return nil, err
	}
	op["input"] = json.RawMessage(`{"type":"object"}`)
	var err error
	if m["operation"], err = json.Marshal(op); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// run invokes op on input as alice and returns the job once it has ended.
func (s *stack) run(t *testing.T, op, input string) *venue.Job {
	t.Helper()
	j, err := s.Invoke(s.alice, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: time.Minute})
	if err != nil {
		t.Fatalf("invoke %s: %v", op, err)
	}
	if !j.Status.Terminal() {
		t.Fatalf("%s did not end within a minute: %s", op, j.Status)
	}
	return j
}

// mustComplete runs op and returns its output, failing unless it completed.
func (s *stack) mustComplete(t *testing.T, op, input string) string {
	t.Helper()
	j := s.run(t, op, input)
	if j.Status != venue.StatusComplete {
		t.Fatalf("%s: status %s, error %q", op, j.Status, j.Error)
	}
	return string(j.Output)
}

// mustRefuse checks that the engine refuses to invoke op on input (the
// catalog schema rejects it) with an error containing want.
func (s *stack) mustRefuse(t *testing.T, op, input, want string) {
	t.Helper()
	j, err := s.Invoke(s.alice, runtime.InvokeRequest{Operation: op, Input: json.RawMessage(input), Wait: time.Minute})
	switch {
	case err == nil:
		t.Errorf("%s(%s) ran (status %s, error %q); want the engine to refuse it", op, input, j.Status, j.Error)
	case venue.ErrorCode(err) != venue.EINVALID || !strings.Contains(err.Error(), want):
		t.Errorf("%s(%s) refused with %q (%s), want EINVALID containing %q", op, input, err, venue.ErrorCode(err), want)
	}
}

// seed writes values (path → JSON) and secrets (name → value) as alice.
func (s *stack) seed(t *testing.T, values, secrets map[string]string) {
	t.Helper()
	for p, v := range values {
		if err := s.Write(s.alice, p, json.RawMessage(v)); err != nil {
			t.Fatalf("write %s: %v", p, err)
		}
	}
	for name, v := range secrets {
		if err := s.PutSecret(s.alice, name, v); err != nil {
			t.Fatalf("put secret %s: %v", name, err)
		}
	}
}

// guestCase is one invocation: the lattice values and secrets seeded
// first, the operation (a catalog path) and its input, and the expected
// output (compared as JSON, or byte for byte when exact) or job error. In
// op, in, want and wantSent, {web} stands for the test server's URL.
//
// refused marks an input the catalog schema rejects: the case checks that
// the engine refuses it with an error containing refused, then runs it
// through the unchecked twin to reach the guest's own check.
//
// Afterwards, wantLattice values (path → JSON, "" for absent) are read back
// through the engine; wantSent is the one request the server received (see
// webServer), or noRequest; each secret of wantSecrets (name → value) must
// reach the server as a bearer token when an operation refers to it.
type guestCase struct {
	name        string
	lattice     map[string]string
	secrets     map[string]string
	op, in      string
	refused     string
	want        string
	exact       bool
	wantErr     string
	rejected    bool // the host refused on policy (EFORBIDDEN): the job ends REJECTED, not FAILED
	wantLattice map[string]string
	wantSent    string
	wantSecrets map[string]string
	wantInput   string // the input as the job's record shows it, if not as given
}

// noRequest is the wantSent of a case that must not reach the server.
const noRequest = "none"

func runCases(t *testing.T, cases []guestCase) {
	t.Helper()
	s := mustStack(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.seed(t, tc.lattice, tc.secrets)
			s.web.reset()
			op, in := tc.op, s.web.fill(tc.in)
			if tc.refused != "" {
				s.mustRefuse(t, op, in, tc.refused)
				op = unchecked(op)
			}
			j := s.run(t, op, in)
			checkJob(t, j, tc.wantErr, s.web.fill(tc.want), tc.exact, tc.rejected)
			s.checkLattice(t, tc.wantLattice)
			s.web.check(t, tc.wantSent)
			s.checkSecrets(t, tc.wantSecrets)
			if tc.wantInput != "" && string(j.Input) != s.web.fill(tc.wantInput) {
				t.Errorf("the record shows input %s, want %s", j.Input, s.web.fill(tc.wantInput))
			}
		})
	}
}

// checkJob compares the job's outcome with the expected error or output.
func checkJob(t *testing.T, j *venue.Job, wantErr, want string, exact, rejected bool) {
	t.Helper()
	out := string(j.Output)
	switch {
	case wantErr != "":
		status := venue.StatusFailed
		if rejected {
			status = venue.StatusRejected
		}
		if j.Status != status || j.Error != wantErr {
			t.Fatalf("%s(%s): status %s, error %q (output %s)\nwant %s with %q", j.Operation, j.Input, j.Status, j.Error, out, status, wantErr)
		}
	case j.Status != venue.StatusComplete:
		t.Fatalf("%s(%s): status %s, error %q; want COMPLETE", j.Operation, j.Input, j.Status, j.Error)
	case exact && out != want, !exact && !jsonEqual(out, want):
		t.Errorf("%s(%s)\n got %s\nwant %s", j.Operation, j.Input, out, want)
	}
}

// checkLattice reads each path back as alice.
func (s *stack) checkLattice(t *testing.T, want map[string]string) {
	t.Helper()
	for p, v := range want {
		res, err := s.Read(s.alice, p, 0)
		switch {
		case err != nil:
			t.Errorf("read %s: %v", p, err)
		case v == "" && res.Exists:
			t.Errorf("%s holds %s, want nothing", p, res.Value)
		case v != "" && (!res.Exists || !jsonEqual(string(res.Value), v)):
			t.Errorf("%s holds %s (exists %v), want %s", p, res.Value, res.Exists, v)
		}
	}
}

// checkSecrets checks that each secret is stored with its value: an
// http:get referring to it sends the value to the server. A job record
// never shows a secret's value.
func (s *stack) checkSecrets(t *testing.T, want map[string]string) {
	t.Helper()
	for name, value := range want {
		s.web.reset()
		s.mustComplete(t, "v/ops/http/get", `{"url":"`+s.web.URL+`/secret","bearerSecret":"s/`+name+`"}`)
		s.web.check(t, `{"method":"GET","uri":"/secret","headers":{"Authorization":"Bearer `+value+`"},"body":""}`)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func TestGuest_Dispatch(t *testing.T) {
	s := mustStack(t)
	t.Run("unknown operation", func(t *testing.T) {
		j := s.run(t, uncheckedRoot+"core/nope", `{}`)
		checkJob(t, j, "unknown operation core:nope", "", false, false)
	})
	t.Run("large inputs, call after call", func(t *testing.T) {
		big := strings.Repeat("x", 200_000)
		in, want := `{"values":[{"a":"`+big+`"},{"b":1}]}`, `{"result":{"a":"`+big+`","b":1}}`
		for i := range 3 {
			if out := s.mustComplete(t, "v/ops/json/merge", in); out != want {
				t.Fatalf("merge of a 200 kB input, call %d: %d bytes out, want %d", i+1, len(out), len(want))
			}
		}
	})
	t.Run("every catalog entry is registered", func(t *testing.T) {
		entries, err := Entries()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			// The real entry reaches the module unless its schema refuses
			// {}; its twin always does.
			j, err := s.Invoke(s.alice, runtime.InvokeRequest{Operation: e.Path, Input: json.RawMessage(`{}`), Wait: time.Minute})
			if err != nil && !strings.Contains(err.Error(), "Input schema violation") {
				t.Errorf("%s: %v", e.Path, err)
			} else if err == nil && (!j.Status.Terminal() || strings.HasPrefix(j.Error, "unknown operation")) {
				t.Errorf("%s: status %s, error %q", e.Path, j.Status, j.Error)
			}
			if j := s.run(t, unchecked(e.Path), `{}`); strings.HasPrefix(j.Error, "unknown operation") {
				t.Errorf("%s: %s", e.Path, j.Error)
			}
		}
	})
}
