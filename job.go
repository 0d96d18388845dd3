package venue

import (
	"encoding/json"
	"strconv"
)

// Job is the record the venue keeps of one invocation. Every change of status
// makes a new record whose Prev is a snapshot of the one before, so the
// record carries its own history; once Status is terminal nothing changes.
type Job struct {
	ID        JobID
	Status    JobStatus
	Created   int64           // ms since the epoch
	Updated   int64           // ms since the epoch
	Operation string          // the reference the caller invoked, as given
	Name      string          // the operation's display name, e.g. "core:read"
	Caller    string          // DID of the caller that owns the job
	Share     string          // the share it was begun under (Authority.Share), if any
	Input     json.RawMessage // with secret-marked fields masked
	Output    json.RawMessage // nil until COMPLETE
	Error     string          // why the job FAILED, was CANCELLED or REJECTED
	Message   json.RawMessage // what an INPUT_REQUIRED or AUTH_REQUIRED job asks of its client
	Parent    *JobID          // the job that spawned this one, if any
	Prev      *Job            // the state before the last transition

	// Version counts transitions; stores use it to order concurrent writers.
	// It is not part of the wire form.
	Version int64
}

// Next returns the job's next state: a copy with status s at time now whose
// Prev is a snapshot of j. The snapshot keeps what changes between states
// (status, times, output, error, message) and drops what never does; its
// wire form drops id and created as well, which the record carries once.
func (j *Job) Next(s JobStatus, now int64) *Job {
	// One allocation for both: the new state keeps its snapshot alive anyway.
	p := &struct{ next, snap Job }{next: *j, snap: *j}
	snap, n := &p.snap, &p.next
	snap.Input, snap.Operation, snap.Name, snap.Caller, snap.Share, snap.Parent = nil, "", "", "", "", nil
	n.Status, n.Updated, n.Version = s, now, j.Version+1
	n.Message = nil
	n.Prev = boundChain(snap)
	return n
}

// MaxPrev bounds the states a record embeds in its prev chain, its most
// recent ones. Each state nests one level deeper, and a job paused and
// resumed, or asking and answered, again and again would otherwise grow
// its record past what any JSON reader takes (encoding/json: 10000 levels),
// and with it every read of the caller's jobs.
const MaxPrev = 64

// boundChain returns head, or a copy of its first MaxPrev states when the
// chain is longer (the states are shared with earlier records, so they
// are copied rather than cut in place).
func boundChain(head *Job) *Job {
	n := 0
	for q := head; q != nil && n <= MaxPrev; q = q.Prev {
		n++
	}
	if n <= MaxPrev {
		return head
	}
	out := *head
	cur := &out
	for range MaxPrev - 1 {
		next := *cur.Prev
		cur.Prev = &next
		cur = &next
	}
	cur.Prev = nil
	return &out
}

// jobWire is the JSON shape used for decoding. The spec names the operation
// field "operation", the reference venue "op"; records carry both.
type jobWire struct {
	ID        JobID           `json:"id"`
	Status    JobStatus       `json:"status"`
	Created   int64           `json:"created"`
	Updated   int64           `json:"updated"`
	Operation string          `json:"operation"`
	Op        string          `json:"op"`
	Name      string          `json:"name"`
	Caller    string          `json:"caller"`
	Share     string          `json:"share"`
	Input     json.RawMessage `json:"input"`
	Output    json.RawMessage `json:"output"`
	Error     string          `json:"error"`
	Message   json.RawMessage `json:"message"`
	Parent    *JobID          `json:"parent"`
	Prev      *Job            `json:"prev"`
}

// UnmarshalJSON reads a record written by MarshalJSON.
func (j *Job) UnmarshalJSON(b []byte) error {
	var w jobWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	op := w.Operation
	if op == "" {
		op = w.Op
	}
	out := w.Output
	if string(out) == "null" {
		out = nil
	}
	*j = Job{ID: w.ID, Status: w.Status, Created: w.Created, Updated: w.Updated,
		Operation: op, Name: w.Name, Caller: w.Caller, Share: w.Share, Input: w.Input, Output: out,
		Error: w.Error, Message: w.Message, Parent: w.Parent, Prev: w.Prev}
	return nil
}

// MarshalJSON writes the record. It is hand-written because every invoke
// encodes a record at least twice and reflection was the largest cost.
// The receiver is a value so that encoding/json uses it for Jobs that are
// not addressable (map values, fields of structs passed by value).
func (j Job) MarshalJSON() ([]byte, error) {
	return j.AppendJSON(make([]byte, 0, j.SizeHint())), nil
}

// SizeHint is about how many bytes AppendJSON writes: a buffer of that
// capacity rarely grows, and a record of a large input and output is not
// allocated at twice its size (a 15 MB echo's record cost 45 MB).
func (j *Job) SizeHint() int {
	n := 384 + len(j.Input)
	for p := j; p != nil; p = p.Prev {
		n += 64 + len(p.Output) + len(p.Message) + 2*len(p.Error) // an error's escapes
	}
	return n
}

// AppendJSON appends the record's JSON form to b.
func (j *Job) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	if j.ID != (JobID{}) {
		b = append(b, `"id":"`...)
		b = append(b, j.ID.String()...)
		b = append(b, `",`...)
	}
	b = append(b, `"status":`...)
	b = AppendString(b, string(j.Status))
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, j.Created, 10)
	b = append(b, `,"updated":`...)
	b = strconv.AppendInt(b, j.Updated, 10)
	if j.Operation != "" {
		b = appendField(b, "operation", j.Operation)
		b = appendField(b, "op", j.Operation)
	}
	if j.Name != "" {
		b = appendField(b, "name", j.Name)
	}
	if j.Caller != "" {
		b = appendField(b, "caller", j.Caller)
	}
	if j.Share != "" {
		b = appendField(b, "share", j.Share)
	}
	if j.Parent != nil {
		b = appendField(b, "parent", j.Parent.String())
	}
	if j.Input != nil {
		b = append(b, `,"input":`...)
		b = append(b, j.Input...)
	}
	b = append(b, `,"output":`...)
	if j.Output != nil {
		b = append(b, j.Output...)
	} else {
		b = append(b, "null"...)
	}
	if j.Error != "" {
		b = appendField(b, "error", j.Error)
	}
	if j.Message != nil {
		b = append(b, `,"message":`...)
		b = append(b, j.Message...)
	}
	return j.appendPrev(append(b, '}'))
}

// appendPrev writes the prev chain into the object just closed at the end
// of b: each snapshot as status, updated, and output, error and message
// when it had them.
func (j *Job) appendPrev(b []byte) []byte {
	if j.Prev == nil {
		return b
	}
	p := j.Prev
	b = append(b[:len(b)-1], `,"prev":{"status":`...)
	b = AppendString(b, string(p.Status))
	b = append(b, `,"updated":`...)
	b = strconv.AppendInt(b, p.Updated, 10)
	if p.Output != nil {
		b = append(b, `,"output":`...)
		b = append(b, p.Output...)
	}
	if p.Error != "" {
		b = appendField(b, "error", p.Error)
	}
	if p.Message != nil {
		b = append(b, `,"message":`...)
		b = append(b, p.Message...)
	}
	b = p.appendPrev(append(b, '}'))
	return append(b, '}')
}

func appendField(b []byte, name, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return AppendString(b, value)
}

// AppendString appends s as a JSON string, escaping as encoding/json does
// (including <, > and & so records are safe to embed in HTML).
func AppendString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c < 0x80 {
			i++
			continue
		}
		if c < 0x80 {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Multi-byte: let encoding/json's rules handle invalid UTF-8 and
		// U+2028/U+2029 by deferring to it for the rest of the string.
		enc, _ := json.Marshal(s[i:])
		b = append(b, s[start:i]...)
		b = append(b, enc[1:len(enc)-1]...)
		return append(b, '"')
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
