package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Agent statuses.
const (
	Sleeping   = "SLEEPING"
	Running    = "RUNNING"
	Suspended  = "SUSPENDED"
	Terminated = "TERMINATED"
)

// record is an agent as kept at g/<agentId>: one row per field, one row per
// session, so a message to one session does not rewrite the others.
type record struct {
	Status   string              `json:"status"`
	Config   map[string]any      `json:"config"`
	State    json.RawMessage     `json:"state"`
	Tasks    map[string]*task    `json:"tasks"`
	Sessions map[string]*session `json:"sessions"` // those loaded (see scope)
	// Inbox holds, for each session with pending messages, when its
	// oldest came: a run finds its next work here without reading every
	// session, of which an agent gathers one per request or message sent
	// without a sessionId.
	Inbox    map[string]int64 `json:"inbox"`
	Timeline json.RawMessage  `json:"timeline"` // a JSON array, as its row holds it (see appendEntry)
	Error    *string          `json:"error"`
	Caps     []grant          `json:"caps"` // what the agent may do (docs/AGENTS.md); nil: the default
	Created  int64            `json:"created"`
	Updated  int64            `json:"updated"`
	Lease    int64            `json:"lease,omitempty"` // when the current run started, while RUNNING
	// Gen tells this agent from an earlier one of the same id (removed, or
	// TERMINATED and re-created): a run commits only into the agent it
	// claimed.
	Gen string `json:"gen,omitempty"`
	// Interrupted is set when a node's shutdown put the agent back to
	// SLEEPING with its work: a node whose request or chat waits on that
	// work wakes it, so it need not wait for that node's restart (which,
	// for a node scaled away, never comes). A claim clears it.
	Interrupted bool `json:"interrupted,omitempty"`

	// folded says that sessions other than those loaded exist.
	folded bool
	// hasTimeline says that Timeline was loaded (see scope), and is
	// written back.
	hasTimeline bool
}

// task is a pending request, keyed by its job id.
type task struct {
	JobID          string          `json:"jobId"`
	Input          json.RawMessage `json:"input"`
	SessionID      string          `json:"sessionId"`
	Status         string          `json:"status"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	Created        int64           `json:"created"`
}

// session is one conversation thread.
type session struct {
	Meta    sessionMeta     `json:"meta"`
	Frames  []frame         `json:"frames"`
	Pending []envelope      `json:"pending"`
	C       json.RawMessage `json:"c,omitempty"`
}

type sessionMeta struct {
	Parties []string `json:"parties"`
	Created int64    `json:"created"`
	Turns   int      `json:"turns"`
}

type frame struct {
	Conversation []turn `json:"conversation"`
}

// turn is one entry of a conversation.
type turn struct {
	Role    string          `json:"role"` // user, assistant
	Content json.RawMessage `json:"content"`
	Task    string          `json:"task,omitempty"`
	Ts      int64           `json:"ts"`
}

// envelope is a message waiting in a session.
type envelope struct {
	ID      string          `json:"id"`
	Message json.RawMessage `json:"message"`
	Source  string          `json:"source"`
	Ts      int64           `json:"ts"`
}

func newSession(party string, now int64) *session {
	return &session{Meta: sessionMeta{Parties: []string{party}, Created: now},
		Frames: []frame{{Conversation: []turn{}}}, Pending: []envelope{}}
}

// decode reads an agent from its tree at g/<agentId>, read in scope sc.
// A record kept before the inbox, read without all its sessions, is
// errNoInbox: it is read again whole, once, and the next write keeps one.
func decode(t runtime.Tree, sc scope) (*record, error) {
	r := &record{}
	if err := json.Unmarshal(t.Value, r); err != nil || r.Status == "" {
		return nil, damaged(err)
	}
	if r.Inbox == nil && t.Folded {
		return nil, errNoInbox
	}
	r.folded, r.hasTimeline = t.Folded, sc.timeline || sc.all
	if r.Tasks == nil {
		r.Tasks = map[string]*task{}
	}
	if r.Sessions == nil {
		r.Sessions = map[string]*session{}
	}
	if r.Inbox == nil {
		r.Inbox = map[string]int64{}
	}
	if r.Config == nil {
		r.Config = map[string]any{}
	}
	for _, s := range r.Sessions {
		if len(s.Frames) == 0 {
			s.Frames = []frame{{Conversation: []turn{}}}
		}
		if s.Pending == nil {
			s.Pending = []envelope{}
		}
	}
	return r, nil
}

// damaged is the error of an agent record that does not decode (err) or
// has no status (err nil).
func damaged(err error) error {
	return venue.Errorf(venue.EINVALID, "The agent record is damaged (%v): delete it with remove true", err)
}

// errNoInbox: see decode.
var errNoInbox = errors.New("the agent record keeps no inbox")

// rows encodes the agent as the rows kept below g/<agentId>.
func (r *record) rows() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	put := func(k string, v any) { m[k], _ = json.Marshal(v) }
	put("status", r.Status)
	put("config", r.Config)
	state := r.State
	if len(state) == 0 {
		state = json.RawMessage("null")
	}
	m["state"] = state
	put("tasks", r.Tasks)
	if r.hasTimeline {
		m["timeline"] = r.Timeline
		if len(r.Timeline) == 0 {
			m["timeline"] = json.RawMessage("[]")
		}
	}
	put("error", r.Error)
	if r.Caps != nil {
		put("caps", r.Caps)
	}
	put("created", r.Created)
	put("updated", r.Updated)
	if r.Lease != 0 {
		put("lease", r.Lease)
	}
	if r.Gen != "" {
		put("gen", r.Gen)
	}
	if r.Interrupted {
		put("interrupted", true)
	}
	if len(r.Sessions) == 0 && !r.folded {
		m["sessions"] = json.RawMessage("{}")
	}
	for sid, s := range r.Sessions {
		put("sessions/"+sid, s)
	}
	put("inbox", r.inbox())
	return m
}

// inbox is Inbox brought up to date with the sessions loaded; with all of
// them loaded, it names no other.
func (r *record) inbox() map[string]int64 {
	in := maps.Clone(r.Inbox)
	if in == nil || !r.folded {
		in = map[string]int64{}
	}
	for sid, s := range r.Sessions {
		if len(s.Pending) > 0 {
			in[sid] = s.Pending[0].Ts
		} else {
			delete(in, sid)
		}
	}
	return in
}

// entries returns the timeline's entries, oldest first.
func (r *record) entries() []json.RawMessage {
	var es []json.RawMessage
	json.Unmarshal(r.Timeline, &es)
	return es
}

// appendEntry appends e to the timeline, dropping the oldest entries down
// to three quarters of budget bytes once it passes budget. It appends to
// the array's text: decoding every entry and encoding it again cost a
// commit as much as all the rest of it once the timeline was long, and
// trimming with room to spare does that once every many runs rather than
// on each run of an agent at its limit.
func (r *record) appendEntry(e json.RawMessage, budget int) {
	tl := bytes.TrimSpace(r.Timeline)
	if len(tl) < 2 || tl[0] != '[' || tl[len(tl)-1] != ']' || len(bytes.TrimSpace(tl[1:len(tl)-1])) == 0 {
		tl = nil // none, or none to keep
	}
	if tl == nil {
		r.Timeline = slices.Concat([]byte("["), e, []byte("]"))
	} else {
		r.Timeline = slices.Concat(tl[:len(tl)-1], []byte(","), e, []byte("]"))
	}
	if len(r.Timeline) > budget {
		r.Timeline, _ = json.Marshal(trimTimeline(r.entries(), budget*3/4))
	}
}

// orderedTasks returns the pending tasks oldest first.
func (r *record) orderedTasks() []*task {
	ts := slices.Collect(maps.Values(r.Tasks))
	slices.SortFunc(ts, func(a, b *task) int {
		if a.Created != b.Created {
			return int(a.Created - b.Created)
		}
		return strings.Compare(a.JobID, b.JobID)
	})
	return ts
}

// hasWork reports whether a run would find a task or a pending message.
func (r *record) hasWork() bool { return r.hasWorkBut(nil) }

// hasWorkBut reports whether a run would find work other than the tasks
// tried (by job id): a pending message, or another task.
func (r *record) hasWorkBut(tried map[string]bool) bool {
	for id := range r.Tasks {
		if !tried[id] {
			return true
		}
	}
	return len(r.inbox()) > 0
}

var (
	agentIDPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	sessionIDPattern = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{8,64}$`)
)

// checkAgentID validates an agent id, which becomes a lattice path segment.
func checkAgentID(field, id string) error {
	if id == "" {
		return venue.Errorf(venue.EINVALID, "%s is required", field)
	}
	if !agentIDPattern.MatchString(id) {
		return venue.Errorf(venue.EINVALID, "%s %q is not valid: use 1 to 64 letters, digits, '_', '-' or '.', starting with a letter or digit", field, clip(id))
	}
	return nil
}

// normSession validates a session id and returns it as bare lowercase hex.
func normSession(sid string) (string, error) {
	if !sessionIDPattern.MatchString(sid) {
		return "", venue.Errorf(venue.EINVALID, "sessionId %q is not a session id (8 to 64 hex digits, as the venue hands them out): omit it to start a new session", clip(sid))
	}
	return strings.ToLower(strings.TrimPrefix(sid, "0x")), nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
