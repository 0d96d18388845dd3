package ops

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEntries checks every catalog entry: it parses as an operation, sits
// where its adapter says (v/ops/<family>/<kebab-op> for "<family>:<camelOp>"),
// its schemas compile, and every property they declare is described.
func TestEntries(t *testing.T) {
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 17 {
		t.Fatalf("Entries() = %d entries, want the 17 built-in operations at least", len(entries))
	}
	for _, e := range entries {
		t.Run(e.Path, func(t *testing.T) {
			op, err := venue.ParseOperation(e.Path, e.Meta)
			if err != nil {
				t.Fatal(err)
			}
			segs := strings.Split(e.Path, "/")
			if len(segs) != 4 || segs[0] != "v" || segs[1] != "ops" {
				t.Fatalf("path %s, want v/ops/<family>/<op>", e.Path)
			}
			if op.Adapter != segs[2] || op.SubOp() != camel(segs[3]) {
				t.Errorf("adapter %s at %s, want %s:%s", op.Name, e.Path, segs[2], camel(segs[3]))
			}
			if op.Title == "" || op.Description == "" {
				t.Errorf("entry lacks a name or a description")
			}
			for which, doc := range map[string]json.RawMessage{"input": op.Input, "output": op.Output} {
				if _, err := runtime.CompileSchema(e.Path+" "+which, doc); err != nil {
					t.Errorf("%s schema: %v", which, err)
				}
				for _, p := range undescribed(doc, which) {
					t.Errorf("%s has no description", p)
				}
			}
		})
	}
}

// camel turns a kebab-case file name into the adapter's sub-op: job-result
// becomes jobResult.
func camel(kebab string) string {
	parts := strings.Split(kebab, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// undescribed lists the properties of a schema (at any depth) that have no
// description: they are what a language model reads to call the operation.
func undescribed(doc json.RawMessage, at string) []string {
	var s map[string]json.RawMessage
	if json.Unmarshal(doc, &s) != nil {
		return nil
	}
	var props map[string]json.RawMessage
	json.Unmarshal(s["properties"], &props)
	var out []string
	for _, name := range sortedKeys(props) {
		var p map[string]json.RawMessage
		if json.Unmarshal(props[name], &p) == nil && len(p["description"]) == 0 {
			out = append(out, at+"."+name)
		}
		out = append(out, undescribed(props[name], at+"."+name)...)
	}
	for _, k := range []string{"items", "additionalProperties"} {
		out = append(out, undescribed(s[k], at+"."+k)...)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{"read": "read", "job-result": "jobResult", "a-b-c": "aBC"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestModule_ABI checks that the embedded module speaks the reactor ABI of
// wasm/doc.go: it exports its memory, venue_abi_1, venue_alloc (i32) -> i32
// and venue_run (i32, i32, i32, i32) -> i64, and imports nothing but WASI
// and the venue host module.
func TestModule_ABI(t *testing.T) {
	m, err := parseModule(Module())
	if err != nil {
		t.Fatalf("the embedded module (make ops builds it): %v", err)
	}
	want := map[string]string{
		"memory":      "memory",
		"_initialize": "() -> ()",
		"venue_abi_1": "() -> ()",
		"venue_alloc": "(i32) -> (i32)",
		"venue_run":   "(i32, i32, i32, i32) -> (i64)",
	}
	for name, sig := range want {
		if got, ok := m.exports[name]; !ok {
			t.Errorf("module does not export %s", name)
		} else if got != sig {
			t.Errorf("export %s is %s, want %s", name, got, sig)
		}
	}
	for _, imp := range m.imports {
		mod, _, _ := strings.Cut(imp, ".")
		if mod != "wasi_snapshot_preview1" && mod != "venue" {
			t.Errorf("module imports %s; only wasi_snapshot_preview1 and venue are provided", imp)
		}
	}
	for _, fn := range []string{"venue.call", "venue.result"} {
		if !slices.Contains(m.imports, fn) {
			t.Errorf("module does not import %s: the families make host calls", fn)
		}
	}
	if n := len(Module()); n > 6<<20 {
		t.Errorf("module is %d bytes; the built-in operations should stay near 4 MB", n)
	}
	t.Logf("module: %d bytes, %d imports", len(Module()), len(m.imports))
}
