package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	venue "github.com/gridvenue/venue"
)

// Executor runs operations of one adapter family ("core", "wasm", "test", ...).
// Execute returns the operation's output as JSON, or an error that fails the
// job; a *venue.Error's message becomes the job's error as is. Execute must
// return soon after ctx is done: that is how cancel, pause and the job
// deadline stop it.
type Executor interface {
	Execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *Env) (json.RawMessage, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, op *venue.Operation, input json.RawMessage, env *Env) (json.RawMessage, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *Env) (json.RawMessage, error) {
	return f(ctx, op, input, env)
}

// Env is what a running operation may ask of the engine. It is bound to one
// job and its caller; everything it does is done as that caller.
type Env struct {
	e    *Engine
	j    *job
	run  int  // which execution of the job this is
	held bool // whether the execution holds a worker slot (and its caller's, if counted)
}

// JobID returns the id of the job being run.
func (env *Env) JobID() venue.JobID { return env.j.id }

// Caller returns who invoked the job.
func (env *Env) Caller() venue.Caller { return env.j.caller }

// Engine returns the engine running the job, for operations that act on the
// venue itself (secret:set, grid:job-result).
func (env *Env) Engine() *Engine { return env.e }

// Context returns ctx carrying the job's caller, for calls back into the
// engine made on the caller's behalf.
func (env *Env) Context(ctx context.Context) context.Context {
	return venue.WithCaller(ctx, env.j.caller)
}

// Secret resolves the caller's secret name to its plaintext for use inside
// the venue (an outbound request header, say). The value is registered with
// the job so that it is masked wherever it would appear in the job's record.
// Returns ENOTFOUND if the caller has no such secret.
func (env *Env) Secret(ctx context.Context, name string) (string, error) {
	if err := env.mayUseSecret(name); err != nil {
		return "", err
	}
	if c := env.j.caller; c.Bound() != nil {
		// An agent confined to its caps uses only the secrets they cover.
		if err := env.e.Authorize(venue.WithCaller(ctx, c), c.DID+"/"+venue.NSSecrets+"/"+name, venue.AbilityRead); err != nil {
			return "", err
		}
	}
	v, err := env.e.openSecret(ctx, env.j.caller.DID, name)
	if err != nil {
		return "", err
	}
	env.j.mask.add(v)
	return v, nil
}

// MaskJSON returns JSON b with the secrets this job resolved hidden, as its
// record shows them: for what an operation keeps beyond its record, such as
// the tool list a bridged server sent in answer to a request carrying its
// token, which a server may echo.
func (env *Env) MaskJSON(b json.RawMessage) json.RawMessage { return env.j.mask.json(b) }

// Ask puts the job into INPUT_REQUIRED with question as its message and
// waits for the client's reply (POST /api/v1/jobs/{id}), then returns the
// job to STARTED and returns the reply. A reply sent before Ask is asked is
// not lost: it is returned at once. While the job waits it gives up its
// worker slot, so waiting jobs cannot starve the pool.
func (env *Env) Ask(ctx context.Context, question json.RawMessage) (json.RawMessage, error) {
	return env.e.ask(ctx, env, venue.StatusInputRequired, question)
}

// AskAuth is Ask for authorisation: the job waits in AUTH_REQUIRED, with
// what it needs (a sign-in URL, a scope) as its message, until the client
// replies.
func (env *Env) AskAuth(ctx context.Context, need json.RawMessage) (json.RawMessage, error) {
	return env.e.ask(ctx, env, venue.StatusAuthRequired, need)
}

// OpFuncs runs the operations of one family with a Go function each, keyed
// by sub-operation ("read" of "core:read").
type OpFuncs map[string]func(ctx context.Context, input json.RawMessage, env *Env) (json.RawMessage, error)

// Execute runs the function for op's sub-operation.
func (f OpFuncs) Execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *Env) (json.RawMessage, error) {
	fn, ok := f[op.SubOp()]
	if !ok {
		return nil, venue.Errorf(venue.EINTERNAL, "No implementation of %s on this venue", op.Name)
	}
	return fn(ctx, input, env)
}

// Read, Write, Delete, Append, List, Slice and Copy act on the lattice as
// the job's caller: they are what the host module's lattice functions do.

// Read reads path as the caller.
func (env *Env) Read(ctx context.Context, path string, maxSize int) (*ReadResult, error) {
	return env.e.Read(env.Context(ctx), path, maxSize)
}

// Write writes path as the caller.
func (env *Env) Write(ctx context.Context, path string, value json.RawMessage) error {
	if err := env.mayChangeOps(path); err != nil {
		return err
	}
	return env.e.Write(env.Context(ctx), path, value)
}

// Delete deletes path as the caller.
func (env *Env) Delete(ctx context.Context, path string) (bool, error) {
	if err := env.mayChangeOps(path); err != nil {
		return false, err
	}
	return env.e.Delete(env.Context(ctx), path)
}

// Append appends to the vector at path as the caller.
func (env *Env) Append(ctx context.Context, path string, value json.RawMessage) (int, error) {
	if err := env.mayChangeOps(path); err != nil {
		return 0, err
	}
	return env.e.Append(env.Context(ctx), path, value)
}

// List lists the map at path as the caller.
func (env *Env) List(ctx context.Context, path string, offset, limit int) (*ListResult, error) {
	return env.e.List(env.Context(ctx), path, offset, limit)
}

// Slice pages the map or vector at path as the caller.
func (env *Env) Slice(ctx context.Context, path string, offset, limit int) (*SliceResult, error) {
	return env.e.Slice(env.Context(ctx), path, offset, limit)
}

// Copy copies from one path to another as the caller.
func (env *Env) Copy(ctx context.Context, from, to string) error {
	if err := env.mayChangeOps(to); err != nil {
		return err
	}
	return env.e.Copy(env.Context(ctx), from, to)
}

// mayChangeOps refuses a job running code a user uploaded any change to
// where its caller keeps operations and skills: the pins (o/, the MCP
// bridges under o/mcp among them), w/ops and w/skills. A pin re-pointed
// there would run other code the next time the caller calls it, with the
// secrets the caller names for the operation it used to hold (which
// mayUseSecret then lets that code use); a skill rewritten there would
// steer an agent holding tools and secrets.
func (env *Env) mayChangeOps(path string) error {
	if !env.e.runsUploadedCode(env.j) {
		return nil
	}
	_, p, err := ownedPath(path) // read as the engine reads it, whoever's it is
	if err != nil {
		return nil // the engine refuses it in its own words
	}
	switch {
	case p.Namespace() == venue.NSPins,
		p.Namespace() == venue.NSWorkspace && (len(p.Segments) < 2 || p.Segments[1] == "ops" || p.Segments[1] == "skills"):
		return venue.Errorf(venue.EFORBIDDEN, "This operation runs code a user uploaded, which may not change where you keep operations and skills (o/, w/ops, w/skills; here %s): a pin it re-pointed would run other code with the secrets you name for it", clipRef(path))
	}
	return nil
}

// PutSecret stores a secret for the caller (secret:set).
func (env *Env) PutSecret(ctx context.Context, name, value string) error {
	env.j.mask.add(value)
	if err := env.mayUseSecret(name); err != nil {
		return err
	}
	return env.e.PutSecret(env.Context(ctx), name, value)
}

// Log records a message from the operation, tagged with its job, within
// its caller's budget of lines (logBudget); lines over it are dropped and
// counted in a warning at most once a minute.
func (env *Env) Log(ctx context.Context, level slog.Level, msg string) {
	if ok, dropped := env.e.logs.allow(env.j.caller.DID, env.e.now()); !ok {
		if dropped > 0 {
			env.e.log.Warn("operation log lines dropped: their caller is over its budget of log lines",
				"job", env.j.id.String(), "op", env.logOp(), "dropped", dropped, "perSecond", logRate, "burst", logBurst)
		}
		return
	}
	env.e.log.Log(ctx, level, env.j.mask.text(msg), "job", env.j.id.String(), "op", env.logOp())
}

// logOp names the operation in its log lines: its display name
// ("core:read"), or for one whose adapter names no op (an uploaded module,
// "wasm") where the catalog has it (v/...) or its asset, a/<hash>
// (however the caller named it: a pin, a DID), which tells the operator
// whose code wrote the line.
func (env *Env) logOp() string {
	op := env.j.op
	switch {
	case op.SubOp() != "":
		return op.Name
	case strings.HasPrefix(op.Path, "v/"), strings.HasPrefix(op.Path, "a/"):
		return op.Path
	case op.Asset != (venue.AssetID{}):
		return "a/" + op.Asset.Hex()
	}
	return op.Name
}

// mayUseSecret lets a job running code a user uploaded resolve or store
// only the secrets its input names ("s/NAME", "/s/NAME", or a {s/NAME}
// placeholder):
// the code may be anyone's, and its caller, whose secrets they are, says
// which of them it may use. An audit's uploaded "uppercase" sent the
// caller's OPENAI_API_KEY to its author's server. The venue's own
// operations, whose code it ships, need no such naming.
func (env *Env) mayUseSecret(name string) error {
	name = strings.TrimPrefix(strings.TrimPrefix(name, "/"), "s/")
	if !env.e.runsUploadedCode(env.j) || namesSecret(env.j.input, "s/"+name) {
		return nil
	}
	return venue.Errorf(venue.EFORBIDDEN, "This operation runs code a user uploaded, which may use only the secrets its input names: to let it use your secret %s, give \"s/%s\" in the input", clipRef(name), clipRef(name))
}

// namesSecret reports whether input holds ref ("s/NAME") as a string of
// its own (also as "/s/NAME", which references accept) or as a {s/NAME}
// placeholder in one.
func namesSecret(input json.RawMessage, ref string) bool {
	if bytes.Contains(input, []byte(`"`+ref+`"`)) || bytes.Contains(input, []byte(`"/`+ref+`"`)) ||
		bytes.Contains(input, []byte("{"+ref+"}")) {
		return true
	}
	if bytes.IndexByte(input, '\\') < 0 {
		return false // no escape could spell it otherwise
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return false
	}
	return holdsRef(v, ref)
}

func holdsRef(v any, ref string) bool {
	switch v := v.(type) {
	case string:
		return v == ref || v == "/"+ref || strings.Contains(v, "{"+ref+"}")
	case map[string]any:
		for k, e := range v {
			if k == ref || holdsRef(e, ref) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if holdsRef(e, ref) {
				return true
			}
		}
	}
	return false
}
