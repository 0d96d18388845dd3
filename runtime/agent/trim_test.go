package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// TestAgents_TimelineStaysUnderTheValueLimit: the timeline and a session's
// conversation are one row each. They grew with every run until a commit
// would store a row past the store's value limit, which then failed every
// run: the agent was suspended for good ("Value at g/bot/timeline of N
// bytes exceeds the limit"), its tasks stuck. The oldest entries go
// instead.
func TestAgents_TimelineStaysUnderTheValueLimit(t *testing.T) {
	st, err := sql.Open(context.Background(), filepath.Join(t.TempDir(), "venue.db"), sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{SingleNode: true})
	const limit = 64 << 10
	eng, err := runtime.New(context.Background(), runtime.Config{Catalog: entries, SingleNode: true, MaxValueSize: limit},
		runtime.Deps{Store: st, Executors: a.Executors()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(); st.Close() })
	if err := a.Start(context.Background(), eng); err != nil {
		t.Fatal(err)
	}
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	state, _ := json.Marshal(map[string]string{"notes": strings.Repeat("n", 4<<10)})
	mustInvoke(t, ctx, eng, "v/ops/agent/create", fmt.Sprintf(`{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}, "state": %s}`, state))
	var sid string
	for i := range 40 {
		in := fmt.Sprintf(`{"agentId": "bot", "input": {"n": %d, "pad": %q}, "timeout": 10000}`, i, strings.Repeat("p", 2<<10))
		if sid != "" {
			in = fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "input": {"n": %d, "pad": %q}, "timeout": 10000}`, sid, i, strings.Repeat("p", 2<<10))
		}
		var out struct {
			SessionID string `json:"sessionId"`
			Echo      struct {
				N int `json:"n"`
			} `json:"echo"`
		}
		json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/request", in), &out)
		if out.Echo.N != i {
			t.Fatalf("request %d answered %+v", i, out)
		}
		sid = out.SessionID
	}
	info := mustInvoke(t, ctx, eng, "v/ops/agent/info", `{"agentId": "bot"}`)
	var got struct {
		Status         string  `json:"status"`
		Error          *string `json:"error"`
		TimelineLength int     `json:"timelineLength"`
	}
	json.Unmarshal(info, &got)
	if got.Status != Sleeping || got.Error != nil || got.TimelineLength == 0 || got.TimelineLength >= 40 {
		t.Fatalf("info %s", info)
	}
	for _, p := range []string{"g/bot/timeline", "g/bot/sessions/" + sid} {
		res, err := eng.Read(ctx, p, 1<<30)
		if err != nil || !res.Exists || len(res.Value) > limit {
			t.Fatalf("%s: %d bytes, %v", p, len(res.Value), err)
		}
	}
}

func TestTrimTimeline(t *testing.T) {
	tl := []json.RawMessage{json.RawMessage(`"aaaa"`), json.RawMessage(`"bbbb"`), json.RawMessage(`"cccc"`)}
	if got := trimTimeline(tl, 100); len(got) != 3 {
		t.Fatalf("%s", got)
	}
	if got := trimTimeline(tl, 16); len(got) != 2 || string(got[0]) != `"bbbb"` {
		t.Fatalf("%s", got)
	}
	if got := trimTimeline(tl, 1); len(got) != 1 || string(got[0]) != `"cccc"` {
		t.Fatalf("the newest entry is kept whatever its size: %s", got)
	}
}

// TestAppendEntry: a run's entry goes on the end of the timeline's text
// as it is stored, whatever a record kept before held there, and the
// oldest go, down to three quarters of the budget, once it passes it.
func TestAppendEntry(t *testing.T) {
	for _, tc := range []struct {
		name, timeline string
		budget         int
		want           string
	}{
		{"none yet", "", 100, `["e"]`},
		{"null", "null", 100, `["e"]`},
		{"empty", "[]", 100, `["e"]`},
		{"empty, spaced", "[ \n]", 100, `["e"]`},
		{"one", `[{"a":1}]`, 100, `[{"a":1},"e"]`},
		{"spaced", " [1, 2] \n", 100, `[1, 2,"e"]`},
		{"no array", `{"a":1}`, 100, `["e"]`},
		{"past the budget", `["aaaa","bbbb","cccc"]`, 20, `["cccc","e"]`},
		{"the newest whatever its size", `["aaaa"]`, 1, `["e"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &record{Timeline: json.RawMessage(tc.timeline)}
			r.appendEntry(json.RawMessage(`"e"`), tc.budget)
			if string(r.Timeline) != tc.want {
				t.Fatalf("timeline %s, want %s", r.Timeline, tc.want)
			}
			if !json.Valid(r.Timeline) {
				t.Fatalf("timeline %s is no JSON", r.Timeline)
			}
		})
	}
}
