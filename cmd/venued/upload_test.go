package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mustClang builds C source to a Wasm reactor with Debian's clang and
// wasi-libc. Without them it skips, except under CI, which installs them.
func mustClang(t testing.TB, src string) []byte {
	t.Helper()
	if _, err := exec.LookPath("clang"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("clang is missing: CI must install clang lld wasi-libc libclang-rt-14-dev-wasm32")
		}
		t.Skip("clang not installed (apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32)")
	}
	out := filepath.Join(t.TempDir(), "op.wasm")
	cmd := exec.Command("clang", "--target=wasm32-wasi", "-O2", "-mexec-model=reactor", "-Wl,--strip-all", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// registerModule registers operation metadata for module and uploads it,
// returning the asset id and the upload's reply.
func registerModule(t testing.TB, c *client, meta string, module []byte) (string, reply) {
	t.Helper()
	sum := sha256.Sum256(module)
	meta = strings.Replace(meta, "SHA256", hex.EncodeToString(sum[:]), 1)
	var id string
	r := c.do(t, "POST", "/api/v1/assets", meta)
	r.json(t, &id)
	if r.status != 201 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	return id, c.do(t, "PUT", "/api/v1/assets/"+id+"/content", module)
}

// TestWasm_ExampleInC builds examples/wordcount-c, uploads it as an
// operation and invokes it by asset id and through a pin.
func TestWasm_ExampleInC(t *testing.T) {
	module := mustClang(t, "../../examples/wordcount-c/wordcount.c")
	meta, err := os.ReadFile("../../examples/wordcount-c/operation.json")
	if err != nil {
		t.Fatal(err)
	}
	forEachStore(t, func(t *testing.T, c *client, m *Main) {
		id, up := registerModule(t, c, string(meta), module)
		if up.status != 200 {
			t.Fatalf("upload: %d %s", up.status, up.body)
		}
		ref := "a/" + strings.TrimPrefix(id, "0x")
		if r := c.run(t, ref, `{"text": "hello wasm\nfrom C"}`); string(r.body) != `{"words":4,"lines":1,"bytes":17}` {
			t.Fatalf("by asset: %d %s", r.status, r.body)
		}
		if r := c.run(t, ref, `{"text": 5}`); r.status != 400 || !strings.Contains(r.errorText(t), "input.text") {
			t.Fatalf("schema check: %d %s", r.status, r.body)
		}
		var job struct{ Name, Status string }
		c.do(t, "POST", "/api/v1/invoke", `{"operation": "`+ref+`", "input": {"text": "a"}, "wait": true}`).json(t, &job)
		if job.Status != "COMPLETE" || job.Name != "Word Count" {
			t.Fatalf("record: %+v, want COMPLETE named as the metadata names the operation", job)
		}
		c.run(t, "v/ops/core/write", `{"path": "o/wordcount", "value": "`+id+`"}`)
		if r := c.run(t, "o/wordcount", `{"text": "one two three"}`); string(r.body) != `{"words":3,"lines":0,"bytes":13}` {
			t.Fatalf("by pin: %d %s", r.status, r.body)
		}
		// The pin is the caller's tool, and an entry of its listing.
		sess := mcpSession(t, m, "")
		tool := toolNames(t, sess)["wordcount"]
		if tool == nil || !strings.Contains(string(mustJSON(tool.InputSchema)), `"text"`) {
			t.Fatalf("tools/list has no wordcount tool with the module's input schema: %+v", tool)
		}
		if res := callTool(t, sess, "wordcount", map[string]any{"text": "a b"}); res.IsError || !strings.Contains(resultText(res), `"words":2`) {
			t.Fatalf("tools/call wordcount: %+v %s", res, resultText(res))
		}
		var entry struct{ Name, Path, Description string }
		if r := c.do(t, "GET", "/api/v1/operations/o:wordcount", nil); r.status != 200 {
			t.Fatalf("GET /api/v1/operations/o:wordcount: %d %s", r.status, r.body)
		} else if r.json(t, &entry); entry.Path != "o/wordcount" || entry.Name != "o:wordcount" {
			t.Fatalf("the pin's entry: %+v", entry)
		}
	})
}

// TestWasm_OutputIsChecked: an uploaded operation's output is held to the
// output schema its metadata declares; breaking it fails the job, naming
// the field.
func TestWasm_OutputIsChecked(t *testing.T) {
	module := mustClang(t, "../../examples/wordcount-c/wordcount.c")
	meta, err := os.ReadFile("../../examples/wordcount-c/operation.json")
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(MustRunMain(t, ""))
	strict := strings.Replace(string(meta), `"words": {"type": "integer"}`, `"words": {"type": "string"}`, 1)
	id, up := registerModule(t, c, strict, module)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	var job struct {
		Status, Error string
		Output        json.RawMessage
	}
	c.do(t, "POST", "/api/v1/invoke", `{"operation": "a/`+strings.TrimPrefix(id, "0x")+`", "input": {"text": "two words"}, "wait": true}`).json(t, &job)
	if job.Status != "FAILED" || job.Error != "Output schema violation: output.words: got number, want string (the operation's output breaks the schema its metadata declares)" ||
		string(job.Output) != "null" {
		t.Fatalf("job %+v", job)
	}
}

// TestWasm_UploadIsChecked refuses module content that is not a runnable
// operation, and keeps nothing of it.
func TestWasm_UploadIsChecked(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	meta := `{"name": "op", "operation": {"adapter": "wasm", "input": {"type": "object"}},
	  "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`
	noABI := []byte("\x00asm\x01\x00\x00\x00") // a valid, empty module
	for _, tc := range []struct {
		name   string
		module []byte
		want   string
	}{
		{"not wasm", []byte("#!/bin/sh\necho hi\n"), "does not compile"},
		{"neither ABI", noABI, "neither the reactor ABI"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, up := registerModule(t, c, meta, tc.module)
			if up.status != 400 || !strings.Contains(up.errorText(t), tc.want) {
				t.Fatalf("%d %s, want 400 with %q", up.status, up.body, tc.want)
			}
			if r := c.do(t, "GET", "/api/v1/assets/"+id+"/content", nil); r.status != 404 {
				t.Fatalf("refused content is stored: %d", r.status)
			}
		})
	}
	// "wasm:<name>" runs on the same executor as "wasm": its module is
	// checked alike (an audit uploaded random bytes under "wasm:upper").
	t.Run("an adapter wasm:<name> is checked as wasm is", func(t *testing.T) {
		sub := strings.Replace(meta, `"adapter": "wasm"`, `"adapter": "wasm:upper"`, 1)
		id, up := registerModule(t, c, sub, []byte("random bytes, no module"))
		if up.status != 400 || !strings.Contains(up.errorText(t), "does not compile") {
			t.Fatalf("%d %s, want 400: the module does not compile", up.status, up.body)
		}
		if r := c.do(t, "GET", "/api/v1/assets/"+id+"/content", nil); r.status != 404 {
			t.Fatalf("refused content is stored: %d", r.status)
		}
	})
	// Content uploaded for a plain asset is stored under its sha256; an
	// operation naming that sha256 later would find it there unchecked.
	t.Run("an operation over content stored already is checked at registration", func(t *testing.T) {
		garbage := []byte("not a module, stored as text")
		sum := sha256.Sum256(garbage)
		var plain string
		c.do(t, "POST", "/api/v1/assets", `{"name": "notes", "content": {"contentType": "text/plain", "sha256": "`+hex.EncodeToString(sum[:])+`"}}`).json(t, &plain)
		if up := c.do(t, "PUT", "/api/v1/assets/"+plain+"/content", garbage); up.status != 200 {
			t.Fatalf("plain upload: %d %s", up.status, up.body)
		}
		r := c.do(t, "POST", "/api/v1/assets", strings.Replace(meta, "SHA256", hex.EncodeToString(sum[:]), 1))
		if r.status != 400 || !strings.Contains(r.errorText(t), "The content this operation names is stored already and is no module the venue can run: module does not compile") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("a module operation without content is refused at registration", func(t *testing.T) {
		for _, meta := range []string{`{"name": "x", "operation": {"adapter": "wasm"}}`, `{"name": "x", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm"}}`} {
			r := c.do(t, "POST", "/api/v1/assets", meta)
			if r.status != 400 || !strings.Contains(r.errorText(t), "sha256") {
				t.Fatalf("%s: %d %s", meta, r.status, r.body)
			}
		}
	})
	// A misspelt adapter was registered (201) and failed every call, and
	// the module uploaded under it went unchecked.
	t.Run("a module's misspelt adapter is refused at registration", func(t *testing.T) {
		for _, adapter := range []string{"wams", "WASM", "Wasm:upper"} {
			r := c.do(t, "POST", "/api/v1/assets", strings.Replace(strings.Replace(meta, `"adapter": "wasm"`, `"adapter": "`+adapter+`"`, 1), "SHA256", strings.Repeat("cd", 32), 1))
			if r.status != 400 || !strings.Contains(r.errorText(t), `Operation adapter "`+adapter+`" is not one this venue runs: an uploaded WebAssembly module's adapter is "wasm"`) {
				t.Fatalf("%s: %d %s", adapter, r.status, r.body)
			}
		}
		// Metadata of another adapter without a module still registers.
		if r := c.do(t, "POST", "/api/v1/assets", `{"name": "elsewhere", "operation": {"adapter": "langchain:run", "input": {"type": "object"}}}`); r.status != 201 {
			t.Fatalf("another venue's operation: %d %s", r.status, r.body)
		}
	})
	// "inputs" for "input" left the operation without an input schema,
	// silently: every input passed.
	t.Run("a misspelt member of a module's operation is refused at registration", func(t *testing.T) {
		typo := strings.Replace(strings.Replace(meta, `"input":`, `"inputs":`, 1), "SHA256", strings.Repeat("cd", 32), 1)
		r := c.do(t, "POST", "/api/v1/assets", typo)
		if r.status != 400 || !strings.Contains(r.errorText(t), "operation.inputs is not a member the venue reads (an uploaded module's operation has adapter, input, output, secretFields, toolName)") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("an operation with a broken schema is refused at registration", func(t *testing.T) {
		r := c.do(t, "POST", "/api/v1/assets", `{"operation": {"adapter": "wasm", "input": {"type": "nonsense"}}}`)
		if r.status != 400 || !strings.Contains(r.errorText(t), "schema") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

// TestWasm_InitializeCrashSaysSo: a module whose _initialize traps (a C
// constructor) is taken at upload, which runs none of its code, and then
// fails every call; the error says the trap was in _initialize, not in the
// operation.
func TestWasm_InitializeCrashSaysSo(t *testing.T) {
	src := filepath.Join(t.TempDir(), "inittrap.c")
	os.WriteFile(src, []byte(`#include <stdint.h>
__attribute__((export_name("venue_abi_1"))) void abi(void) {}
static char buf[4096];
__attribute__((constructor)) static void boom(void) { __builtin_trap(); }
__attribute__((export_name("venue_alloc"))) char *venue_alloc(int n) { return buf; }
__attribute__((export_name("venue_run"))) uint64_t venue_run(char *op, int ol, char *in, int il) {
	return ((uint64_t)(uintptr_t)"{}" << 32) | 2;
}
`), 0o644)
	module := mustClang(t, src)
	c := newClient(MustRunMain(t, ""))
	id, up := registerModule(t, c, `{"name": "init trap", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`, module)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	for range 2 {
		r := c.do(t, "POST", "/api/v1/run", `{"operation": "a/`+strings.TrimPrefix(id, "0x")+`", "input": {}}`)
		if r.status != 500 || !strings.Contains(r.errorText(t), "operation crashed in _initialize, which runs once before an instance's first call (a constructor or package initializer): wasm error: unreachable") {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}
}

// loopModule builds a C reactor whose venue_run loops forever.
func loopModule(t testing.TB) []byte {
	t.Helper()
	src := filepath.Join(t.TempDir(), "loop.c")
	os.WriteFile(src, []byte(`#include <stdint.h>
__attribute__((export_name("venue_abi_1"))) void abi(void) {}
static char buf[4096];
__attribute__((export_name("venue_alloc"))) char *venue_alloc(int n) { return buf; }
__attribute__((export_name("venue_run"))) uint64_t venue_run(char *op, int ol, char *in, int il) {
	volatile uint64_t n = 0;
	for (;;) n++;
}
`), 0o644)
	return mustClang(t, src)
}

// TestWasm_HostileUploadFailsOnlyItsJob runs an uploaded module that loops
// forever: its job fails at its deadline and the venue keeps serving.
func TestWasm_HostileUploadFailsOnlyItsJob(t *testing.T) {
	module := loopModule(t)
	c := newClient(MustRunMain(t, "", func(cfg *Config) { cfg.JobTimeout = "300ms" }))
	id, up := registerModule(t, c, `{"name": "loop", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`, module)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	start := time.Now()
	r := c.do(t, "POST", "/api/v1/invoke", `{"operation": "`+id+`", "wait": true}`)
	if !strings.Contains(string(r.body), `"status":"FAILED"`) || !strings.Contains(string(r.body), "timed out after 300ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("%d %s after %s", r.status, r.body, time.Since(start))
	}
	if r := c.run(t, "v/test/ops/echo", `{"still": "serving"}`); string(r.body) != `{"still":"serving"}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

// TestWasm_LoopsLeaveWorkersForTheVenue: uploaded modules that loop hold
// at most all but a quarter of the workers, so the venue's own operations
// still run while they do (anyone can make identities, so the per-caller
// bound alone does not keep them from every worker).
func TestWasm_LoopsLeaveWorkersForTheVenue(t *testing.T) {
	module := loopModule(t)
	m := MustRunMain(t, "", func(cfg *Config) { cfg.JobTimeout = "20s"; cfg.Workers = 2 })
	c := newClient(m)
	id, up := registerModule(t, c, `{"name": "loop", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`, module)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	// Two callers, each within its own bound, loop: without the reserve
	// they would hold both workers.
	second, _ := asUser(t, m)
	var loops []string
	for _, caller := range []*client{c, second} {
		var job struct{ ID string }
		caller.do(t, "POST", "/api/v1/invoke", `{"operation": "`+id+`"}`).json(t, &job)
		loops = append(loops, job.ID)
	}
	defer func() {
		c.do(t, "PUT", "/api/v1/jobs/"+loops[0]+"/cancel", nil)
		second.do(t, "PUT", "/api/v1/jobs/"+loops[1]+"/cancel", nil)
	}()
	other, _ := asUser(t, m)
	start := time.Now()
	if r := other.run(t, "v/test/ops/echo", `{"still": "serving"}`); string(r.body) != `{"still":"serving"}` || time.Since(start) > 5*time.Second {
		t.Fatalf("%d %s after %s, behind the loops", r.status, r.body, time.Since(start))
	}
	var waiting struct{ Status string }
	second.do(t, "GET", "/api/v1/jobs/"+loops[1], nil).json(t, &waiting)
	if waiting.Status != "PENDING" {
		t.Fatalf("the second caller's loop is %s with one of two workers left to uploaded code", waiting.Status)
	}
}

// TestWasm_OperationContentIsAModule: an uploaded operation's metadata may
// not say its content is anything but a WebAssembly module; any case and
// parameters of application/wasm, or no type at all, will do.
func TestWasm_OperationContentIsAModule(t *testing.T) {
	c := newClient(MustRunMain(t, ""))
	for _, tc := range []struct {
		name, contentType string
		ok                bool
	}{
		{"application/wasm", `"contentType": "application/wasm", `, true},
		{"in capitals, with a parameter", `"contentType": "APPLICATION/WASM; x=1", `, true},
		{"no type", ``, true},
		{"text/plain", `"contentType": "text/plain", `, false},
		{"application/octet-stream", `"contentType": "application/octet-stream", `, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := `{"name": "typed ` + tc.name + `", "operation": {"adapter": "wasm", "input": {"type": "object"}},
			  "content": {` + tc.contentType + `"sha256": "` + strings.Repeat("ab", 32) + `"}}`
			r := c.do(t, "POST", "/api/v1/assets", meta)
			if ok := r.status == 201 || r.status == 200; ok != tc.ok {
				t.Fatalf("register: %d %s", r.status, r.body)
			}
			if !tc.ok && !strings.Contains(r.errorText(t), "must be application/wasm") {
				t.Fatalf("register: %s", r.body)
			}
		})
	}
}

// TestWasm_UploadedSlotsAreSharedFairly: the slots uploaded code may hold
// go, as they free, to the waiting caller holding fewest, so a crowd of
// identities queued first does not keep another caller's operation
// waiting until the whole crowd has run.
func TestWasm_UploadedSlotsAreSharedFairly(t *testing.T) {
	loop := loopModule(t)
	wc := mustClang(t, "../../examples/wordcount-c/wordcount.c")
	wcMeta, err := os.ReadFile("../../examples/wordcount-c/operation.json")
	if err != nil {
		t.Fatal(err)
	}
	m := MustRunMain(t, "", func(cfg *Config) { cfg.JobTimeout = "30s"; cfg.Workers = 4 }) // three slots for uploaded code
	c := newClient(m)
	loopID, up := registerModule(t, c, `{"name": "loop", "operation": {"adapter": "wasm"}, "content": {"contentType": "application/wasm", "sha256": "SHA256"}}`, loop)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	wcID, up := registerModule(t, c, string(wcMeta), wc)
	if up.status != 200 {
		t.Fatalf("upload: %d %s", up.status, up.body)
	}
	crowd1, _ := asUser(t, m)
	crowd2, _ := asUser(t, m)
	other, _ := asUser(t, m)
	invoke := func(cl *client, op, input string) string {
		var job struct{ ID string }
		cl.do(t, "POST", "/api/v1/invoke", `{"operation": "`+op+`", "input": `+input+`}`).json(t, &job)
		return job.ID
	}
	status := func(cl *client, id string) string {
		var job struct{ Status string }
		cl.do(t, "GET", "/api/v1/jobs/"+id, nil).json(t, &job)
		return job.Status
	}
	type running struct {
		cl *client
		id string
	}
	var loops []running
	defer func() {
		for _, l := range loops {
			l.cl.do(t, "PUT", "/api/v1/jobs/"+l.id+"/cancel", nil)
		}
	}()
	for _, cl := range []*client{crowd1, crowd1, crowd2} {
		loops = append(loops, running{cl, invoke(cl, loopID, "{}")})
	}
	for _, l := range loops {
		eventually(t, "the crowd's loops run", func() bool { return status(l.cl, l.id) == "STARTED" })
	}
	queued := running{crowd2, invoke(crowd2, loopID, "{}")} // waits for a slot, first in line
	loops = append(loops, queued)
	time.Sleep(200 * time.Millisecond)
	count := invoke(other, wcID, `{"text": "fair share"}`)
	time.Sleep(200 * time.Millisecond)
	if s := status(other, count); s != "PENDING" {
		t.Fatalf("the other caller's job is %s with every uploaded slot held", s)
	}
	// A slot frees. In arrival order the crowd's queued loop would take it
	// and the other caller's job would wait for a loop's 30 s deadline.
	crowd1.do(t, "PUT", "/api/v1/jobs/"+loops[0].id+"/cancel", nil)
	eventually(t, "the other caller's job runs first", func() bool { return status(other, count) == "COMPLETE" })
}
