package venue_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func sampleJob(tb testing.TB) *venue.Job {
	tb.Helper()
	parent := mustJobID(tb, strings.Repeat("ab", 16))
	return &venue.Job{
		ID:        mustJobID(tb, hex32),
		Status:    venue.StatusInputRequired,
		Created:   1700000000000,
		Updated:   1700000000500,
		Operation: "v/ops/core/read",
		Name:      "core:read",
		Caller:    "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp",
		Share:     strings.Repeat("5e", 32),
		Input:     json.RawMessage(`{"path":"w/notes","apiKey":"***"}`),
		Output:    json.RawMessage(`{"partial":true}`),
		Error:     "",
		Message:   json.RawMessage(`{"question":"Which notebook?"}`),
		Parent:    &parent,
		Version:   3,
	}
}

func TestJob_Next(t *testing.T) {
	for _, tc := range []struct {
		name string
		to   venue.JobStatus
		now  int64
		edit func(*venue.Job) // changes applied to the job before Next
	}{
		{"input required to started", venue.StatusStarted, 1700000001000, nil},
		{"to paused", venue.StatusPaused, 1700000002000, nil},
		{"failed job keeps its error in the snapshot", venue.StatusFailed, 1700000003000, func(j *venue.Job) {
			j.Status, j.Error, j.Output = venue.StatusStarted, "upstream said no", nil
		}},
		{"job without parent, message or output", venue.StatusComplete, 1700000004000, func(j *venue.Job) {
			j.Parent, j.Message, j.Output, j.Status = nil, nil, nil, venue.StatusStarted
		}},
		{"job with history", venue.StatusStarted, 1700000005000, func(j *venue.Job) {
			j.Prev = &venue.Job{ID: j.ID, Status: venue.StatusPending, Created: j.Created, Updated: j.Created}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := sampleJob(t)
			if tc.edit != nil {
				tc.edit(j)
			}
			before := *j
			n := j.Next(tc.to, tc.now)

			if !reflect.DeepEqual(*j, before) {
				t.Errorf("Next changed its receiver:\n got %+v\nwant %+v", *j, before)
			}
			if n == j {
				t.Fatal("Next returned its receiver")
			}
			if n.Status != tc.to || n.Updated != tc.now || n.Version != j.Version+1 {
				t.Errorf("next = status %q updated %d version %d; want %q %d %d",
					n.Status, n.Updated, n.Version, tc.to, tc.now, j.Version+1)
			}
			if n.Message != nil {
				t.Errorf("next.Message = %s, want nil: a question is answered by the transition", n.Message)
			}
			if n.ID != j.ID || n.Created != j.Created || n.Operation != j.Operation || n.Name != j.Name ||
				n.Caller != j.Caller || n.Share != j.Share || !bytes.Equal(n.Input, j.Input) || !bytes.Equal(n.Output, j.Output) ||
				n.Error != j.Error || !reflect.DeepEqual(n.Parent, j.Parent) {
				t.Errorf("next lost a field that does not change:\n got %+v\nwant %+v", n, j)
			}

			p := n.Prev
			if p == nil {
				t.Fatal("next.Prev = nil")
			}
			if p == j {
				t.Error("next.Prev is the receiver itself, not a snapshot")
			}
			if p.Status != j.Status || p.Created != j.Created || p.Updated != j.Updated ||
				!bytes.Equal(p.Output, j.Output) || p.Error != j.Error || !bytes.Equal(p.Message, j.Message) {
				t.Errorf("snapshot lost what changes between states:\n got %+v\nwant %+v", p, j)
			}
			if p.Input != nil || p.Operation != "" || p.Name != "" || p.Caller != "" || p.Share != "" || p.Parent != nil {
				t.Errorf("snapshot kept what never changes: input %s op %q name %q caller %q share %q parent %v",
					p.Input, p.Operation, p.Name, p.Caller, p.Share, p.Parent)
			}
			if p.Prev != j.Prev {
				t.Errorf("snapshot.Prev = %p, want the receiver's Prev %p", p.Prev, j.Prev)
			}
		})
	}
}

func TestJob_Next_Chain(t *testing.T) {
	j := &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusPending, Created: 1, Updated: 1, Operation: "echo"}
	j = j.Next(venue.StatusStarted, 2)
	j.Output = json.RawMessage(`"hi"`)
	j = j.Next(venue.StatusComplete, 3)

	var got []venue.JobStatus
	var times []int64
	for p := j; p != nil; p = p.Prev {
		got = append(got, p.Status)
		times = append(times, p.Updated)
	}
	if want := []venue.JobStatus{venue.StatusComplete, venue.StatusStarted, venue.StatusPending}; !reflect.DeepEqual(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
	if want := []int64{3, 2, 1}; !reflect.DeepEqual(times, want) {
		t.Errorf("chain times = %v, want %v", times, want)
	}
	if j.Version != 2 || j.Operation != "echo" || string(j.Output) != `"hi"` {
		t.Errorf("final = %+v", j)
	}
}

// wireOnly drops what the wire form does not carry (Version at every level).
func wireOnly(j *venue.Job) *venue.Job { return wireForm(j, false) }

// wireForm is what the wire keeps of j: no Version, and in prev snapshots
// no id or created, which the record carries once at its top.
func wireForm(j *venue.Job, snapshot bool) *venue.Job {
	if j == nil {
		return nil
	}
	c := *j
	c.Version = 0
	if snapshot {
		c.ID, c.Created = venue.JobID{}, 0
	}
	c.Prev = wireForm(j.Prev, true)
	return &c
}

func TestJob_JSONRoundTrip(t *testing.T) {
	parent := mustJobID(t, strings.Repeat("cd", 16))
	for _, tc := range []struct {
		name string
		job  *venue.Job
	}{
		{"minimal pending", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusPending, Created: 1, Updated: 1, Operation: "v/ops/core/read"}},
		{"zero id", &venue.Job{Status: venue.StatusPending}},
		{"with input and output", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusComplete, Created: 1, Updated: 2,
			Operation: "echo", Name: "core:echo", Caller: "did:web:alice.example",
			Input: json.RawMessage(`{"a":[1,2,{"b":null}]}`), Output: json.RawMessage(`{"echo":"hi"}`)}},
		{"scalar output", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusComplete, Output: json.RawMessage(`42`)}},
		{"null input", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusStarted, Input: json.RawMessage(`null`)}},
		{"failed with error", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusFailed, Created: 5, Updated: 9,
			Operation: "a/" + hex64, Error: "Boom: \"quoted\" <tag> & \\ \n\t é 😀 \u2028"}},
		{"with parent", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusStarted, Parent: &parent}},
		{"with message", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusAuthRequired,
			Message: json.RawMessage(`{"url":"https://auth.example/?a=1&b=2"}`)}},
		{"with prev chain", func() *venue.Job {
			j := sampleJob(t)
			j = j.Next(venue.StatusStarted, 1700000001000)
			j.Output = json.RawMessage(`{"done":true}`)
			return j.Next(venue.StatusComplete, 1700000002000)
		}()},
		{"full sample", sampleJob(t)},
		{"odd strings in every text field", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusRejected,
			Operation: "did:web:x%3A1/v/ops/\"q\"", Name: "a\x00b", Caller: "\x7f<>&", Error: "\xff\xfe invalid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.job.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) {
				t.Fatalf("MarshalJSON wrote invalid JSON: %s", b)
			}
			var got venue.Job
			if err := got.UnmarshalJSON(b); err != nil {
				t.Fatalf("UnmarshalJSON(%s): %v", b, err)
			}
			want := wireOnly(tc.job)
			// Invalid UTF-8 reads back as U+FFFD, as encoding/json does.
			want.Error = viaEncodingJSON(t, want.Error)
			if !reflect.DeepEqual(&got, want) {
				t.Errorf("round trip of %s\n got %+v\nwant %+v", b, &got, want)
			}
			// Through encoding/json as well, as the stores and doors use it.
			// encoding/json compacts and HTML-escapes what MarshalJSON
			// returns, so compare the values the two texts hold.
			b2, err := json.Marshal(tc.job)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			var v1, v2 any
			if err := json.Unmarshal(b, &v1); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b2, &v2); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v1, v2) {
				t.Errorf("json.Marshal = %s\n  MarshalJSON = %s", b2, b)
			}
			var viaStd venue.Job
			if err := json.Unmarshal(b2, &viaStd); err != nil {
				t.Fatalf("json.Unmarshal(%s): %v", b2, err)
			}
			if viaStd.Status != got.Status || viaStd.Operation != got.Operation || viaStd.Error != got.Error {
				t.Errorf("json.Unmarshal = %+v, want %+v", &viaStd, &got)
			}
		})
	}
}

// viaEncodingJSON returns s as encoding/json reads it back after writing it.
func viaEncodingJSON(tb testing.TB, s string) string {
	tb.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestJob_MarshalJSON_Shape(t *testing.T) {
	for _, tc := range []struct {
		name    string
		job     *venue.Job
		want    map[string]string // field -> raw JSON value; "-" means absent
		wantRaw string            // if set, the exact encoding
	}{
		{"operation is written twice", &venue.Job{Status: venue.StatusPending, Operation: "v/ops/core/read"},
			map[string]string{"operation": `"v/ops/core/read"`, "op": `"v/ops/core/read"`, "output": "null", "id": "-", "error": "-", "prev": "-", "parent": "-", "message": "-", "input": "-"},
			`{"status":"PENDING","created":0,"updated":0,"operation":"v/ops/core/read","op":"v/ops/core/read","output":null}`},
		{"output null on a failed job", &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusFailed, Created: 1, Updated: 2, Error: "no"},
			map[string]string{"id": `"0x` + hex32 + `"`, "status": `"FAILED"`, "created": "1", "updated": "2", "output": "null", "error": `"no"`, "operation": "-", "op": "-"},
			`{"id":"0x` + hex32 + `","status":"FAILED","created":1,"updated":2,"output":null,"error":"no"}`},
		{"output kept when present", &venue.Job{Status: venue.StatusComplete, Output: json.RawMessage(`[1]`)},
			map[string]string{"output": "[1]"}, ""},
		{"parent is a hex id", &venue.Job{Status: venue.StatusStarted, Parent: func() *venue.JobID { p := mustJobID(t, hex32); return &p }()},
			map[string]string{"parent": `"0x` + hex32 + `"`}, ""},
		{"version is not on the wire", &venue.Job{Status: venue.StatusStarted, Version: 7},
			map[string]string{"version": "-", "Version": "-"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.job)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantRaw != "" && string(b) != tc.wantRaw {
				t.Errorf("encoding\n got %s\nwant %s", b, tc.wantRaw)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				got, ok := m[k]
				switch {
				case v == "-" && ok:
					t.Errorf("field %q = %s, want absent", k, got)
				case v != "-" && string(got) != v:
					t.Errorf("field %q = %s, want %s", k, got, v)
				}
			}
		})
	}
}

func TestJob_UnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    venue.Job
		wantErr bool
	}{
		{"reference venue's op field", `{"status":"STARTED","op":"echo"}`,
			venue.Job{Status: venue.StatusStarted, Operation: "echo"}, false},
		{"operation wins over op", `{"status":"STARTED","operation":"v/ops/a/b","op":"echo"}`,
			venue.Job{Status: venue.StatusStarted, Operation: "v/ops/a/b"}, false},
		{"null output reads as none", `{"status":"FAILED","output":null,"error":"x"}`,
			venue.Job{Status: venue.StatusFailed, Error: "x"}, false},
		{"unknown fields are ignored", `{"status":"PENDING","extra":{"a":1}}`,
			venue.Job{Status: venue.StatusPending}, false},
		{"bad id", `{"id":"0x12","status":"PENDING"}`, venue.Job{}, true},
		{"bad parent", `{"parent":"nope"}`, venue.Job{}, true},
		{"not an object", `[1]`, venue.Job{}, true},
		{"bad prev", `{"prev":{"id":"zz"}}`, venue.Job{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got venue.Job
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("Unmarshal(%s) = %+v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestJob_MarshalJSON_UntrustedStatus: UnmarshalJSON accepts any status
// string, and AppendJSON copies Status into the output without escaping.
// A record read back with a status holding '"' or '\' must still encode as
// valid JSON: AppendJSON escapes Status like any string.
func TestJob_MarshalJSON_UntrustedStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status venue.JobStatus
	}{
		{"quote", `DONE"`},
		{"backslash", `A\B`},
		{"newline", "A\nB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &venue.Job{Status: tc.status}
			b, _ := j.MarshalJSON()
			if !json.Valid(b) {
				t.Fatalf("MarshalJSON wrote invalid JSON: %s", b)
			}
			var back venue.Job
			if err := json.Unmarshal(b, &back); err != nil || back.Status != tc.status {
				t.Errorf("status read back as %q, %v; want %q", back.Status, err, tc.status)
			}
		})
	}
}

// appendStringCases covers every class of byte encoding/json treats apart.
var appendStringCases = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"plain ASCII", "hello, world"},
	{"all printable ASCII", func() string {
		var b strings.Builder
		for c := 0x20; c < 0x7f; c++ {
			b.WriteByte(byte(c))
		}
		return b.String()
	}()},
	{"double quote", `say "hi"`},
	{"backslash", `C:\path\to`},
	{"slash stays", "a/b</c>"},
	{"newline, return, tab", "a\nb\rc\td"},
	{"backspace", "a\bb"},
	{"form feed", "a\fb"},
	{"NUL", "a\x00b"},
	{"every C0 control", func() string {
		var b strings.Builder
		for c := 0; c < 0x20; c++ {
			b.WriteByte(byte(c))
		}
		return b.String()
	}()},
	{"DEL", "a\x7fb"},
	{"HTML characters", "<script>alert('x') && 1 > 0</script>"},
	{"ampersand alone", "&"},
	{"two-byte UTF-8", "café"},
	{"three-byte UTF-8", "日本語 €"},
	{"four-byte UTF-8", "😀 𝄞"},
	{"line separator", "a\u2028b"},
	{"paragraph separator", "a\u2029b"},
	{"both separators then HTML", "\u2028\u2029<&>"},
	{"C1 control", "a\u0085b\u009b"},
	{"BOM", "\ufeffx"},
	{"replacement char", "\ufffd"},
	{"invalid lead byte", "a\xffb"},
	{"lone continuation byte", "a\x80b"},
	{"truncated sequence", "a\xe2\x82"},
	{"encoded surrogate", "a\xed\xa0\x80b"},
	{"overlong encoding", "\xc0\xaf"},
	{"ASCII escapes after multi-byte", "é\"\\\n<\x01"},
	{"ASCII escapes before multi-byte", "\"\\\n<\x01é"},
	{"control before invalid byte", "\b\xff"},
	{"max rune", "\U0010ffff"},
}

func TestAppendString(t *testing.T) {
	for _, tc := range appendStringCases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := venue.AppendString(nil, tc.in)
			if !bytes.Equal(got, want) {
				t.Errorf("AppendString(%q)\n got %s\nwant %s (encoding/json)", tc.in, got, want)
			}
		})
	}
}

func TestAppendString_Appends(t *testing.T) {
	prefix := []byte(`{"k":`)
	got := venue.AppendString(prefix[:len(prefix):len(prefix)], "v\u2028")
	if want := `{"k":"v\u2028"`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if string(prefix) != `{"k":` {
		t.Errorf("prefix changed to %s", prefix)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, tc := range appendStringCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got := venue.AppendString([]byte("x"), s)
		if got[0] != 'x' || !bytes.Equal(got[1:], want) {
			t.Fatalf("AppendString(%q)\n got %s\nwant x%s", s, got, want)
		}
	})
}

// TestJob_MarshalJSON_ByValue: MarshalJSON has a pointer receiver, so
// encoding/json only uses it for addressable values: a Job passed by value,
// held as a map value or in a struct passed by value must still get the
// wire form, never reflection's {"ID":...,"Version":...}.
func TestJob_MarshalJSON_ByValue(t *testing.T) {
	j := venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusPending, Created: 1, Updated: 1, Operation: "echo"}
	want, err := json.Marshal(&j)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    any
		wrap func([]byte) string
	}{
		{"pointer", &j, func(b []byte) string { return string(b) }},
		{"slice element", []venue.Job{j}, func(b []byte) string { return "[" + string(b) + "]" }},
		{"value", j, func(b []byte) string { return string(b) }},
		{"map value", map[string]venue.Job{"job": j}, func(b []byte) string { return `{"job":` + string(b) + "}" }},
		{"field of a struct value", struct {
			Job venue.Job `json:"job"`
		}{j}, func(b []byte) string { return `{"job":` + string(b) + "}" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.wrap(want) {
				t.Errorf("json.Marshal\n got %s\nwant %s", got, tc.wrap(want))
			}
		})
	}
}

// TestJob_Next_ChainIsBounded: a record embeds its MaxPrev latest states,
// however many transitions the job made (each state nests a level deeper),
// and cutting a new record's chain leaves the earlier records whole.
func TestJob_Next_ChainIsBounded(t *testing.T) {
	j := &venue.Job{ID: mustJobID(t, hex32), Status: venue.StatusPending, Created: 1, Updated: 1, Operation: "ask"}
	var at70 *venue.Job
	for i := range 300 {
		j = j.Next([]venue.JobStatus{venue.StatusPaused, venue.StatusStarted, venue.StatusInputRequired}[i%3], int64(i+2))
		if i == 69 {
			at70 = j
		}
	}
	depth := func(j *venue.Job) (n int) {
		for p := j; p != nil; p = p.Prev {
			n++
		}
		return n
	}
	if got := depth(j); got != 1+venue.MaxPrev {
		t.Fatalf("chain of %d states, want %d", got, 1+venue.MaxPrev)
	}
	if j.Updated != 301 || j.Prev.Updated != 300 || j.Version != 300 {
		t.Fatalf("the chain does not keep the latest states: %d %d", j.Updated, j.Prev.Updated)
	}
	if got := depth(at70); got != 1+venue.MaxPrev {
		t.Fatalf("an earlier record's chain changed: %d states", got)
	}
	if b := j.AppendJSON(nil); strings.Count(string(b), `"prev"`) != venue.MaxPrev {
		t.Fatalf("the wire form holds %d prev", strings.Count(string(b), `"prev"`))
	}
}

// TestJob_SizeHint: the hint covers the record, so its buffer does not
// grow, and is not far above it for a large input and output.
func TestJob_SizeHint(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	started := (&venue.Job{ID: venue.JobID{1}, Status: venue.StatusPending, Operation: "v/ops/core/read", Caller: "did:key:z", Input: big}).Next(venue.StatusStarted, 2)
	for _, tc := range []struct {
		name string
		j    *venue.Job
	}{
		{"a fresh job", &venue.Job{ID: venue.JobID{1}, Status: venue.StatusPending}},
		{"a large input and output", func() *venue.Job { n := started.Next(venue.StatusComplete, 3); n.Output = big; return n }()},
		{"an error to escape", func() *venue.Job {
			n := started.Next(venue.StatusFailed, 3)
			n.Error = strings.Repeat("\"\n", 300)
			return n
		}()},
		{"a message asked, then answered", func() *venue.Job {
			n := started.Next(venue.StatusInputRequired, 3)
			n.Message = json.RawMessage(`{"q":"` + strings.Repeat("?", 5000) + `"}`)
			return n.Next(venue.StatusStarted, 4).Next(venue.StatusComplete, 5)
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.j.AppendJSON(nil))
			if hint := tc.j.SizeHint(); hint < n || hint > n+4096 {
				t.Fatalf("SizeHint %d for a record of %d bytes", hint, n)
			}
		})
	}
}
