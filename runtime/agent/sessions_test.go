package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// countingStore counts the bytes of lattice values the engine reads.
type countingStore struct {
	*sql.Store
	read atomic.Int64
	// before, when set, is called with the fold of every UpdateFolded
	// before it reaches the store: how a test puts another operation
	// between an agent operation's checks and its write.
	before atomic.Pointer[func(runtime.Fold)]
}

func (s *countingStore) count(rows []runtime.ValueRow) {
	for _, r := range rows {
		s.read.Add(int64(len(r.Value)))
	}
}

func (s *countingStore) ValueRows(ctx context.Context, owner, path string, sizesOnly bool, fn func(runtime.ValueRow) error) error {
	return s.Store.ValueRows(ctx, owner, path, sizesOnly, func(r runtime.ValueRow) error {
		s.count([]runtime.ValueRow{r})
		return fn(r)
	})
}

func (s *countingStore) FoldedRows(ctx context.Context, owner, path string, fold runtime.Fold, fn func(runtime.ValueRow) error) error {
	return s.Store.FoldedRows(ctx, owner, path, fold, func(r runtime.ValueRow) error {
		s.count([]runtime.ValueRow{r})
		return fn(r)
	})
}

func (s *countingStore) UpdateValues(ctx context.Context, owner, path string, fn func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error)) error {
	return s.Store.UpdateValues(ctx, owner, path, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		s.count(rows)
		return fn(rows)
	})
}

func (s *countingStore) UpdateFolded(ctx context.Context, owner, path string, fold runtime.Fold, fn func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error)) error {
	if f := s.before.Load(); f != nil {
		(*f)(fold)
	}
	return s.Store.UpdateFolded(ctx, owner, path, fold, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		s.count(rows)
		return fn(rows)
	})
}

func countingVenue(t *testing.T) (*runtime.Engine, *countingStore) {
	t.Helper()
	st, err := sql.Open(t.Context(), filepath.Join(t.TempDir(), "venue.db"), sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: st}
	entries, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	a := New(Config{SingleNode: true})
	eng, err := runtime.New(t.Context(), runtime.Config{Catalog: entries, SingleNode: true},
		runtime.Deps{Store: cs, Executors: a.Executors()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); eng.Stop(); a.Drain(5 * time.Second); eng.Close(); st.Close() })
	if err := a.Start(t.Context(), eng); err != nil {
		t.Fatal(err)
	}
	return eng, cs
}

// TestAgents_WorkReadsOnlyItsSession: every request or message sent
// without a sessionId mints a session, and each run appends to the
// timeline. Every step of the agent read all of them, so an agent became
// slower with use without end (a request took 8 ms on a new agent and
// 104 ms once it held 1,000 sessions). A request now reads its session,
// and the timeline only where a run appends to it.
func TestAgents_WorkReadsOnlyItsSession(t *testing.T) {
	eng, cs := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	pad := strings.Repeat("p", 8<<10)
	var sids []string
	for i := range 40 {
		sids = append(sids, sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/request", fmt.Sprintf(`{"agentId": "bot", "input": {"n": %d, "pad": %q}, "timeout": 10000}`, i, pad))))
	}
	res, err := eng.Read(ctx, "g/bot", 1<<30)
	if err != nil || res.ValueBytes < 40*2*len(pad) {
		t.Fatalf("the agent holds %d bytes, %v: want its 40 sessions and timeline", res.ValueBytes, err)
	}
	timeline, _ := eng.Read(ctx, "g/bot/timeline", 1<<30)
	sessions, _ := eng.Read(ctx, "g/bot/sessions", 1<<30)
	before := cs.read.Load()
	out := mustInvoke(t, ctx, eng, "v/ops/agent/request", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "input": {"n": "again"}, "timeout": 10000}`, sids[3]))
	if !strings.Contains(string(out), `"again"`) {
		t.Fatalf("request answered %s", out)
	}
	// Its session, the timeline where the run appends to it, and the
	// small rows; not the other 39 sessions.
	if read := cs.read.Load() - before; read > int64(timeline.ValueBytes)+int64(sessions.ValueBytes)/10 {
		t.Fatalf("one request read %d bytes of lattice values: the agent holds %d in its timeline and %d in its sessions", read, timeline.ValueBytes, sessions.ValueBytes)
	}
	conv, err := eng.Read(ctx, "g/bot/sessions/"+sids[3]+"/frames/0/conversation", 0)
	if err != nil || strings.Count(string(conv.Value), `"role":"user"`) != 2 {
		t.Fatalf("session %s holds %s, %v: want both its requests", sids[3], conv.Value, err)
	}
}

// TestAgents_InboxFindsTheWaitingSession: a run finds the session whose
// messages wait longest from the inbox, without reading the sessions; a
// chat on a session the record does not load is answered in it; a record
// kept before the inbox is read whole once, and keeps one from then on.
func TestAgents_InboxFindsTheWaitingSession(t *testing.T) {
	eng, _ := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	first := sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/message", `{"agentId": "bot", "message": "first"}`))
	second := sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/message", `{"agentId": "bot", "message": "second"}`))
	mustInvoke(t, ctx, eng, "v/ops/agent/message", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "message": "first again"}`, first))
	inbox := func() map[string]int64 {
		res, err := eng.Read(ctx, "g/bot/inbox", 0)
		var in map[string]int64
		if err != nil || json.Unmarshal(res.Value, &in) != nil {
			t.Fatalf("inbox %s, %v", res.Value, err)
		}
		return in
	}
	if in := inbox(); len(in) != 2 || in[first] == 0 || in[second] == 0 || in[first] > in[second] {
		t.Fatalf("inbox %v: want both sessions, %s the older", in, first)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot", "autoWake": true}`)
	waitFor(t, func() bool { return len(inbox()) == 0 })
	for sid, want := range map[string]string{first: `"first again"`, second: `"second"`} {
		conv, err := eng.Read(ctx, "g/bot/sessions/"+sid+"/frames/0/conversation", 0)
		if err != nil || !strings.Contains(string(conv.Value), want) {
			t.Fatalf("session %s: %s, %v", sid, conv.Value, err)
		}
	}
	var chat struct {
		SessionID string          `json:"sessionId"`
		Response  json.RawMessage `json:"response"`
	}
	json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/chat", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "message": "hello"}`, second)), &chat)
	if chat.SessionID != second || !strings.Contains(string(chat.Response), "hello") {
		t.Fatalf("chat answered %+v", chat)
	}
	rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/chat", Input: json.RawMessage(`{"agentId": "bot", "sessionId": "0123456789abcdef", "message": "x"}`), Wait: 10 * time.Second})
	if err != nil || rec.Status != venue.StatusFailed || !strings.Contains(rec.Error, "Unknown sessionId") {
		t.Fatalf("chat on an unknown session: %+v, %v", rec, err)
	}

	// A record from before the inbox: a message waits and no inbox says so.
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/message", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "message": "kept before"}`, first))
	err = eng.UpdateTree(ctx, "g/bot", runtime.Fold{}, func(t runtime.Tree) (map[string]json.RawMessage, error) {
		var rows map[string]json.RawMessage
		json.Unmarshal(t.Value, &rows)
		delete(rows, "inbox")
		var sessions map[string]json.RawMessage
		json.Unmarshal(rows["sessions"], &sessions)
		delete(rows, "sessions")
		for sid, s := range sessions {
			rows["sessions/"+sid] = s
		}
		return rows, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := eng.Read(ctx, "g/bot/inbox", 0); res.Exists {
		t.Fatal("the inbox is still there")
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot", "autoWake": true}`)
	waitFor(t, func() bool {
		conv, _ := eng.Read(ctx, "g/bot/sessions/"+first+"/frames/0/conversation", 0)
		return strings.Contains(string(conv.Value), "kept before")
	})
	if in := inbox(); len(in) != 0 {
		t.Fatalf("inbox %v after the run", in)
	}

	// Terminated and created again, it starts with no sessions and an
	// empty timeline, though it did not read them.
	mustInvoke(t, ctx, eng, "v/ops/agent/delete", `{"agentId": "bot"}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}, "overwrite": true}`)
	for p, want := range map[string]string{"g/bot/sessions": "{}", "g/bot/timeline": "[]", "g/bot/inbox": "{}"} {
		if res, err := eng.Read(ctx, p, 0); err != nil || string(res.Value) != want {
			t.Fatalf("%s of the new agent: %s, %v; want %s", p, res.Value, err, want)
		}
	}

	// Removed, it goes whole: the sessions and timeline it did not read too.
	mustInvoke(t, ctx, eng, "v/ops/agent/message", `{"agentId": "bot", "message": "one more"}`)
	mustInvoke(t, ctx, eng, "v/ops/agent/delete", `{"agentId": "bot", "remove": true}`)
	for _, p := range []string{"g/bot", "g/bot/timeline", "g/bot/sessions"} {
		if res, err := eng.Read(ctx, p, 0); err != nil || res.Exists {
			t.Fatalf("%s after the removal: %s, %v", p, res.Value, err)
		}
	}
}

// TestAgents_ListPastOneRead: agent:list read all of g at once, which
// came back truncated once the agents held more than one read assembles
// (16 MiB), and then listed no agent at all. It reads of each agent only
// the rows it shows, not the state of megabytes beside them.
func TestAgents_ListPastOneRead(t *testing.T) {
	eng, cs := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	state, _ := json.Marshal(map[string]string{"notes": strings.Repeat("n", 3<<20)})
	for i := range 6 {
		mustInvoke(t, ctx, eng, "v/ops/agent/create", fmt.Sprintf(`{"agentId": "bot-%d", "config": {"operation": "v/ops/transition/scripted"}, "state": %s}`, i, state))
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/delete", `{"agentId": "bot-2"}`)
	var out struct {
		Agents []struct {
			AgentID string `json:"agentId"`
		} `json:"agents"`
		Total int `json:"total"`
	}
	before := cs.read.Load()
	json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/list", `{}`), &out)
	if read := cs.read.Load() - before; read > 1<<20 {
		t.Errorf("listing six agents read %d bytes of their values", read)
	}
	if out.Total != 5 || len(out.Agents) != 5 || out.Agents[0].AgentID != "bot-0" || out.Agents[2].AgentID != "bot-3" {
		t.Fatalf("list %+v: want bot-0 to bot-5 but the deleted bot-2", out)
	}
	json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/list", `{"includeTerminated": true}`), &out)
	if out.Total != 6 {
		t.Fatalf("list with the terminated: %+v", out)
	}
}

// TestAgents_RemoveADamagedRecord: a record that does not decode fails
// every operation with "delete it with remove true", which failed the same
// way: it decoded the record first.
func TestAgents_RemoveADamagedRecord(t *testing.T) {
	eng, _ := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	err := eng.UpdateTree(ctx, "g/bot/tasks", runtime.Fold{}, func(runtime.Tree) (map[string]json.RawMessage, error) {
		return map[string]json.RawMessage{"": json.RawMessage(`["not", "a", "map"]`)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/info", Input: json.RawMessage(`{"agentId": "bot"}`), Wait: 10 * time.Second})
	if err != nil || !strings.Contains(rec.Error, "remove true") {
		t.Fatalf("info of the damaged agent: %+v, %v", rec, err)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/delete", `{"agentId": "bot", "remove": true}`)
	if res, err := eng.Read(ctx, "g/bot", 0); err != nil || res.Exists {
		t.Fatalf("g/bot after the removal: %s, %v", res.Value, err)
	}
	rec, err = eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/delete", Input: json.RawMessage(`{"agentId": "bot", "remove": true}`), Wait: 10 * time.Second})
	if err != nil || !strings.Contains(rec.Error, "not found") {
		t.Fatalf("removing it again: %+v, %v", rec, err)
	}
}

// sessionOf is the sessionId of an agent operation's output.
func sessionOf(out json.RawMessage) string {
	var o struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(out, &o)
	return o.SessionID
}

// sleepingWithOneSession creates agent bot, runs one request on a session
// of its own, and waits for the agent to sleep; it returns the session.
func sleepingWithOneSession(t *testing.T, ctx context.Context, eng *runtime.Engine) string {
	t.Helper()
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	sid := sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 1}, "timeout": 10000}`))
	waitFor(t, func() bool {
		res, _ := eng.Read(ctx, "g/bot/status", 0)
		return string(res.Value) == `"`+Sleeping+`"`
	})
	return sid
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// TestAgents_SessionsListedAndDeleted: an agent's sessions are listed a
// page at a time, and one is deleted with the messages waiting in it,
// unless a task of it is pending or the agent runs.
func TestAgents_SessionsListedAndDeleted(t *testing.T) {
	eng, _ := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	mustInvoke(t, ctx, eng, "v/ops/agent/create", `{"agentId": "bot", "config": {"operation": "v/ops/transition/scripted"}}`)
	var sids []string
	for i := range 3 {
		sids = append(sids, sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/request", fmt.Sprintf(`{"agentId": "bot", "input": {"n": %d}, "timeout": 10000}`, i))))
	}
	deferred := sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"defer": true}, "timeout": 0}`))
	mustInvoke(t, ctx, eng, "v/ops/agent/suspend", `{"agentId": "bot"}`)
	waiting := sessionOf(mustInvoke(t, ctx, eng, "v/ops/agent/message", `{"agentId": "bot", "message": "unread"}`))

	type listed struct {
		Total    int `json:"total"`
		Sessions []struct {
			SessionID string   `json:"sessionId"`
			Parties   []string `json:"parties"`
			Turns     int      `json:"turns"`
			Waiting   bool     `json:"waiting"`
		} `json:"sessions"`
	}
	list := func(in string) listed {
		var l listed
		json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/sessions", in), &l)
		return l
	}
	all := list(`{"agentId": "bot"}`)
	if all.Total != 5 || len(all.Sessions) != 5 {
		t.Fatalf("listed %+v: want 5 sessions", all)
	}
	for _, s := range all.Sessions {
		if s.Waiting != (s.SessionID == waiting) || len(s.Parties) != 1 {
			t.Fatalf("session %+v: waiting should be %v", s, s.SessionID == waiting)
		}
	}
	if page := list(`{"agentId": "bot", "offset": 3, "limit": 1}`); page.Total != 5 || len(page.Sessions) != 1 || page.Sessions[0].SessionID != all.Sessions[3].SessionID {
		t.Fatalf("page %+v", page)
	}

	failed := func(in, want string) {
		t.Helper()
		rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/delete-session", Input: json.RawMessage(in), Wait: 10 * time.Second})
		if err != nil || rec.Status != venue.StatusFailed || !strings.Contains(rec.Error, want) {
			t.Fatalf("delete-session %s: %+v, %v; want it to fail with %q", in, rec, err, want)
		}
	}
	failed(fmt.Sprintf(`{"agentId": "bot", "sessionId": %q}`, deferred), "is pending")
	failed(`{"agentId": "bot", "sessionId": "0123456789abcdef"}`, "Unknown sessionId")
	failed(`{"agentId": "bot", "sessionId": "not hex"}`, "not a session id")
	failed(fmt.Sprintf(`{"agentId": "nobody", "sessionId": %q}`, sids[0]), "not found")

	var out struct {
		Deleted         bool `json:"deleted"`
		DroppedMessages int  `json:"droppedMessages"`
	}
	json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/delete-session", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q}`, waiting)), &out)
	if !out.Deleted || out.DroppedMessages != 1 {
		t.Fatalf("delete-session answered %+v", out)
	}
	mustInvoke(t, ctx, eng, "v/ops/agent/delete-session", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q}`, sids[1]))
	if res, _ := eng.Read(ctx, "g/bot/sessions/"+sids[1], 0); res.Exists {
		t.Fatal("the deleted session is still there")
	}
	if res, _ := eng.Read(ctx, "g/bot/inbox", 0); string(res.Value) != "{}" {
		t.Fatalf("inbox %s after its one waiting session went", res.Value)
	}
	if l := list(`{"agentId": "bot"}`); l.Total != 3 {
		t.Fatalf("listed %+v after two deletions", l)
	}
	// Resumed, the agent finds no work in the deleted session.
	mustInvoke(t, ctx, eng, "v/ops/agent/resume", `{"agentId": "bot"}`)
	waitFor(t, func() bool {
		var info struct {
			Status string `json:"status"`
		}
		json.Unmarshal(mustInvoke(t, ctx, eng, "v/ops/agent/info", `{"agentId": "bot"}`), &info)
		return info.Status == Sleeping
	})
	if l := list(`{"agentId": "bot"}`); l.Total != 3 {
		t.Fatalf("listed %+v after the run", l)
	}
	// While a run may be working on any session, none is deleted.
	mustInvoke(t, ctx, eng, "v/ops/agent/request", fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "input": {"delay": 1000}, "timeout": 0}`, sids[2]))
	failed(fmt.Sprintf(`{"agentId": "bot", "sessionId": %q}`, sids[0]), "is running")
}

// TestAgents_DeleteSessionSparesAChatBegunMeanwhile: delete-session looked
// for a chat on the session before its write, not in it. A chat that
// began in between (its message delivered, the agent not yet woken) lost
// its message with the session, and the agent, woken with no work, never
// answered it: the chat waited out its deadline. The write itself now
// refuses the deletion, and the chat is answered.
func TestAgents_DeleteSessionSparesAChatBegunMeanwhile(t *testing.T) {
	eng, cs := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	sid := sleepingWithOneSession(t, ctx, eng)

	type answer struct {
		rec *venue.Job
		err error
	}
	chatted := make(chan answer, 1)
	deleted := make(chan struct{})
	var armed atomic.Bool
	armed.Store(true)
	hook := func(f runtime.Fold) {
		if armed.CompareAndSwap(true, false) {
			// delete-session's write, after its checks: a chat begins on
			// the session and delivers its message first.
			go func() {
				rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/chat",
					Input: json.RawMessage(fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "message": "meanwhile"}`, sid)), Wait: 5 * time.Second})
				chatted <- answer{rec, err}
			}()
			waitFor(t, func() bool {
				res, _ := eng.Read(ctx, "g/bot/sessions/"+sid+"/pending", 1<<20)
				return strings.Contains(string(res.Value), "meanwhile")
			})
			return
		}
		if len(f.Keep) == 0 {
			<-deleted // the chat's wake claims the agent once the deletion is decided
		}
	}
	cs.before.Store(&hook)
	rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/delete-session",
		Input: json.RawMessage(fmt.Sprintf(`{"agentId": "bot", "sessionId": %q}`, sid)), Wait: 10 * time.Second})
	close(deleted)
	cs.before.Store(nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != venue.StatusFailed || !strings.Contains(rec.Error, "A chat waits") {
		t.Errorf("delete-session while a chat waits on the session: %s %s", rec.Status, rec.Error)
	}
	a := <-chatted
	if a.err != nil || a.rec.Status != venue.StatusComplete || !strings.Contains(string(a.rec.Output), "meanwhile") {
		t.Fatalf("the chat: %+v, %v; want it answered", a.rec, a.err)
	}
}

// TestAgents_SessionGoneUnderAChat: a chat waits on a session that is then
// deleted before the agent reads its message, as delete-session on another
// node does, which knows nothing of this node's chat. The chat waited out
// its deadline; it now fails at once, saying so. And an inbox entry of a
// session that is no more is dropped by the run that finds it: every run
// found it as work, and the agent never settled.
func TestAgents_SessionGoneUnderAChat(t *testing.T) {
	eng, cs := countingVenue(t)
	ctx := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkOwner"})
	sid := sleepingWithOneSession(t, ctx, eng)
	forge := func(path string, v json.RawMessage) {
		t.Helper()
		err := eng.UpdateTree(ctx, path, runtime.Fold{}, func(runtime.Tree) (map[string]json.RawMessage, error) {
			if v == nil {
				return map[string]json.RawMessage{}, nil
			}
			return map[string]json.RawMessage{"": v}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// The chat's message is delivered; before the wake claims the agent,
	// another node deletes the session.
	var armed atomic.Bool
	armed.Store(true)
	hook := func(f runtime.Fold) {
		if len(f.Keep) == 0 && armed.CompareAndSwap(true, false) {
			forge("g/bot/sessions/"+sid, nil)
			forge("g/bot/inbox", json.RawMessage(`{}`))
		}
	}
	delivered := func(f runtime.Fold) {
		if len(f.Keep) == 1 {
			cs.before.Store(&hook) // the next update without a session is the wake's
		}
	}
	cs.before.Store(&delivered)
	start := time.Now()
	rec, err := eng.Invoke(ctx, runtime.InvokeRequest{Operation: "v/ops/agent/chat",
		Input: json.RawMessage(fmt.Sprintf(`{"agentId": "bot", "sessionId": %q, "message": "lost"}`, sid)), Wait: 8 * time.Second})
	cs.before.Store(nil)
	if err != nil || rec.Status != venue.StatusFailed || !strings.Contains(rec.Error, "was deleted before the agent read your message") {
		t.Fatalf("chat on a session deleted under it: %+v, %v after %v", rec, err, time.Since(start).Round(time.Millisecond))
	}

	// An inbox naming a session that is no more, beside one that is.
	mustInvoke(t, ctx, eng, "v/ops/agent/request", `{"agentId": "bot", "input": {"n": 2}, "timeout": 10000}`)
	forge("g/bot/inbox", json.RawMessage(fmt.Sprintf(`{%q: 1}`, sid)))
	mustInvoke(t, ctx, eng, "v/ops/agent/trigger", `{"agentId": "bot", "force": false, "wait": 5000}`)
	waitFor(t, func() bool {
		status, _ := eng.Read(ctx, "g/bot/status", 0)
		inbox, _ := eng.Read(ctx, "g/bot/inbox", 0)
		return string(status.Value) == `"`+Sleeping+`"` && string(inbox.Value) == "{}"
	})
}
