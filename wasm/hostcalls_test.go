package wasm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

// answers is what the Go reactor's "host" action reports: each venue.call's
// result or error, in order.
type answers struct {
	Answers []struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	} `json:"answers"`
}

// hostCalls has the Go reactor make reqs as alice and returns the answers.
func (h *harness) hostCalls(t *testing.T, reqs ...string) answers {
	t.Helper()
	out := h.mustComplete(t, h.alice, "v/test/wasm/goreactor", `{"do":"host","reqs":[`+strings.Join(reqs, ",")+`]}`)
	var a answers
	if err := json.Unmarshal([]byte(out), &a); err != nil || len(a.Answers) != len(reqs) {
		t.Fatalf("answers %s: %v", out, err)
	}
	return a
}

// TestHost_LatticeCalls has a guest use every lattice function and checks
// the result through the engine.
func TestHost_LatticeCalls(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor")
	a := h.hostCalls(t,
		`{"fn":"lattice.write","path":"w/wasmtest/x","value":{"n":1}}`,
		`{"fn":"lattice.read","path":"w/wasmtest/x"}`,
		`{"fn":"lattice.append","path":"w/wasmtest/log","value":"first"}`,
		`{"fn":"lattice.copy","from":"w/wasmtest/x","to":"w/wasmtest/y"}`,
		`{"fn":"lattice.list","path":"w/wasmtest"}`,
		`{"fn":"lattice.slice","path":"w/wasmtest/log"}`,
		`{"fn":"lattice.delete","path":"w/wasmtest/y"}`,
	)
	for i, want := range []string{
		`{"written":true}`,
		`{"exists":true,"value":{"n":1},"valueBytes":7}`,
		`{"appended":true,"index":0}`,
		`{"copied":true}`,
		`{"exists":true,"type":"Map","count":3,"keys":["log","x","y"],"offset":0}`,
		`{"exists":true,"type":"Vector","count":1,"values":["first"],"offset":0,"limit":100}`,
		`{"deleted":true}`,
	} {
		if got := a.Answers[i]; !got.OK || string(got.Result) != want {
			t.Errorf("call %d: ok %v, result %s, error %q; want %s", i, got.OK, got.Result, got.Error, want)
		}
	}
	r, err := h.Read(h.alice, "w/wasmtest/x", 0)
	if err != nil || !r.Exists || string(r.Value) != `{"n":1}` {
		t.Errorf("engine reads w/wasmtest/x as %+v, %v", r, err)
	}
	if r, _ := h.Read(h.bob, "w/wasmtest/x", 0); r.Exists {
		t.Error("bob sees alice's workspace")
	}
}

// TestHost_CommandHostCall checks that a command module reaches the host
// module too, as its job's caller.
func TestHost_CommandHostCall(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "gocommand")
	in, _ := json.Marshal(map[string]string{"do": "host", "text": `{"fn":"lattice.write","path":"w/cmd/x","value":[1,2]}`})
	out := h.mustComplete(t, h.alice, "v/test/wasm/gocommand", string(in))
	if want := `{"ok":true,"result":"{\"written\":true}"}`; out != want {
		t.Errorf("output %s, want %s", out, want)
	}
	if r, err := h.Read(h.alice, "w/cmd/x", 0); err != nil || string(r.Value) != "[1,2]" {
		t.Errorf("engine reads %+v, %v", r, err)
	}
}

// TestHost_BadHostCalls checks that a malformed request is answered with
// an error the guest can read, not a trap.
func TestHost_BadHostCalls(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor")
	for _, tc := range []struct{ name, req, want string }{
		{"unknown fn", `{"fn":"lattice.explode","path":"w/x"}`, "lattice.explode: no such host function"},
		{"no fn", `{"path":"w/x"}`, `the request must be a JSON object with a string "fn"`},
		{"not an object", `[1,2]`, `the request must be a JSON object with a string "fn"`},
		{"argument of the wrong type", `{"fn":"lattice.read","path":5}`, `lattice.read: "path" must be a string, not number`},
		{"missing argument", `{"fn":"lattice.read"}`, `lattice.read: "path" is required`},
		{"missing value", `{"fn":"lattice.write","path":"w/x"}`, `lattice.write: "value" is required`},
		{"copy without a destination", `{"fn":"lattice.copy","from":"w/x"}`, `lattice.copy: "to" is required`},
		// The venue's own refusals come in its exact words, unprefixed.
		{"malformed path", `{"fn":"lattice.read","path":"nowhere//x"}`, "Lattice path \"nowhere//x\" has an empty segment"},
		{"forbidden namespace", `{"fn":"lattice.write","path":"v/info/x","value":1}`, "The venue namespace v/ is read-only"},
		{"http without url", `{"fn":"http.request","method":"GET"}`, `http.request: "url" is required`},
		{"http to a blocked address", `{"fn":"http.request","url":"http://169.254.169.254/latest"}`, "URL targets a private/internal address: 169.254.169.254"},
		{"unknown secret", `{"fn":"http.request","url":"http://example.com","bearerSecret":"s/NOPE"}`, "Could not resolve bearerSecret reference: s/NOPE"},
		{"secret without value", `{"fn":"secret.set","name":"X"}`, `secret.set: "value" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := h.hostCalls(t, tc.req).Answers[0]
			if got.OK {
				t.Fatalf("result %s, want an error", got.Result)
			}
			wantContains(t, "error", got.Error, tc.want)
			t.Logf("%s → %s", tc.req, got.Error)
		})
	}
}

// TestHost_HTTPWithSecret has a guest call a server with a bearer secret it
// never sees; neither the guest nor the job record ever holds the value.
func TestHost_HTTPWithSecret(t *testing.T) {
	const secret = "sekret-7f3a9c"
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hello":"guest"}`))
	}))
	defer srv.Close()
	h := mustHarness(t, Config{}, runtime.Config{Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}}, "goreactor")
	if err := h.PutSecret(h.alice, "TOKEN", secret); err != nil {
		t.Fatal(err)
	}
	in := `{"do":"host","reqs":[{"fn":"http.request","url":"` + srv.URL + `/x","bearerSecret":"s/TOKEN"},` +
		`{"fn":"secret.set","name":"MADE","value":"made-by-guest"},` +
		`{"fn":"http.request","url":"` + srv.URL + `/y","secretHeaders":{"X-Key":"s/MADE"}}]}`
	j := h.run(t, h.alice, "v/test/wasm/goreactor", in)
	out := string(j.Output)
	wantContains(t, "output", out, `"status":200`, `{\"hello\":\"guest\"}`, `"name":"MADE","stored":true`)
	mu.Lock()
	if len(auth) != 2 || auth[0] != "Bearer "+secret {
		t.Errorf("the server saw Authorization %q, want %q", auth, "Bearer "+secret)
	}
	mu.Unlock()
	rec, err := h.Job(h.alice, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), secret) {
		t.Errorf("the job record holds the secret: %s", b)
	}
}

// TestHost_Log checks that a guest's log lines reach the engine's log,
// tagged with the job, at the mapped level and bounded in size.
func TestHost_Log(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor")
	long := strings.Repeat("y", 10_000)
	for _, tc := range []struct {
		name  string
		level int
		text  string
		want  string
	}{
		{"info", 1, "hello from the guest", "INFO hello from the guest"},
		{"error", 3, "it hurts", "ERROR it hurts"},
		{"levels clamp", 9, "very bad", "ERROR very bad"},
		{"debug", 0, "details", "DEBUG details"},
		{"bounded", 2, long, "WARN " + long[:maxLogText] + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"do": "log", "level": tc.level, "text": tc.text})
			j := h.run(t, h.alice, "v/test/wasm/goreactor", string(in))
			if want := tc.want + " job=" + j.ID.String() + " op=wasm"; !strings.Contains(h.logs.text(), want) {
				t.Errorf("the engine's log lacks %.80q", want)
			}
		})
	}
}

// TestHost_LogBudget checks that a caller's log lines beyond its budget are
// dropped, with one warning for the run of them, while other callers' lines
// still go through.
func TestHost_LogBudget(t *testing.T) {
	h := mustHarness(t, Config{}, runtime.Config{}, "goreactor")
	line := func(i int) string {
		in, _ := json.Marshal(map[string]any{"do": "log", "level": 1, "text": fmt.Sprintf("line %d.", i)})
		return string(in)
	}
	start := time.Now()
	const n = 1500
	for i := range n {
		h.run(t, h.alice, "v/test/wasm/goreactor", line(i))
	}
	refill := int(time.Since(start).Seconds()*100) + 1 // lines the budget regained meanwhile
	h.run(t, h.bob, "v/test/wasm/goreactor", line(n))
	logs := h.logs.text()
	written := strings.Count(logs, "INFO line ")
	if written < 1000+1 || written > 1000+refill+1 || !strings.Contains(logs, "line 999.") {
		t.Fatalf("%d of alice's %d lines and bob's written, want the first 1000, at most %d more, and bob's", written, n, refill)
	}
	if got := strings.Count(logs, "operation log lines dropped: their caller is over its budget of log lines"); got != 1 {
		t.Errorf("%d warnings of dropped lines, want 1", got)
	}
	if !strings.Contains(logs, fmt.Sprintf("line %d.", n)) {
		t.Error("bob's line was dropped with alice's")
	}
}

// TestHost_InitLogBudget checks that what a reactor logs in _initialize
// goes to the log of the job that made the instance, within its caller's
// budget: an audit's module logging 1000 lines there and trapping in
// venue_run, so that every call made a new instance, wrote 41 MB to the
// operator's log in ten calls, untagged.
func TestHost_InitLogBudget(t *testing.T) {
	h := mustHarnessWith(t, Config{}, runtime.Config{}, map[string][]byte{"initlog": initLogger(1000)})
	start := time.Now()
	var ids []string
	for range 3 {
		j := h.run(t, h.alice, "v/test/wasm/initlog", "{}")
		if j.Status != venue.StatusFailed {
			t.Fatalf("job %s, want it failed (venue_run traps)", j.Status)
		}
		ids = append(ids, j.ID.String())
	}
	refill := int(time.Since(start).Seconds()*100) + 1
	logs := h.logs.text()
	if got := strings.Count(logs, "INFO init job="+ids[0]+" "); got != 1000 {
		t.Errorf("%d lines of the first job's _initialize in the log tagged with it, want 1000", got)
	}
	if got := strings.Count(logs, "INFO init job="); got > 1000+refill {
		t.Errorf("%d lines of _initialize written for 3000 logged, want the budget's 1000 and at most %d more", got, refill)
	}
	if !strings.Contains(logs, "operation log lines dropped: their caller is over its budget of log lines") {
		t.Error("no warning of the lines dropped")
	}
}

// initLogger is a reactor whose _initialize logs "init" n times at info,
// and whose venue_run traps.
func initLogger(n int) []byte {
	write := append(append(i32Const(0), i32Const(0x74696e69)...), 0x36, 0x02, 0x00) // "init" at 0
	logInit := append(append(append(i32Const(1), i32Const(0)...), i32Const(4)...), 0x10, 0x00)
	return buildModule([]wimport{{mod: "venue", name: "log", params: []byte{tI32, tI32, tI32}}}, []wfunc{
		{export: "venue_abi_1"},
		{export: "venue_alloc", params: []byte{tI32}, results: []byte{tI32}, body: i32Const(1024)},
		{export: "venue_run", params: []byte{tI32, tI32, tI32, tI32}, results: []byte{tI64}, body: []byte{0x00}},
		{export: "_initialize", body: append(write, bytes.Repeat(logInit, n)...)},
	}, 1)
}
