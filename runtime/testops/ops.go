package testops

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

//go:embed catalog/*.json
var catalogFS embed.FS

// Entries returns the catalog entries of the test operations.
func Entries() ([]runtime.CatalogEntry, error) {
	return runtime.EntriesFromFS(catalogFS, "catalog", "v/test/ops")
}

// Executor runs the "test" adapter family.
func Executor() runtime.Executor {
	return runtime.OpFuncs{
		"echo":   echo,
		"delay":  delay,
		"error":  fail,
		"never":  never,
		"ask":    ask,
		"reveal": reveal,
		"value":  value,
	}
}

func echo(_ context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	return in, nil
}

// value returns the input's "value" as the output: an output that need
// not be an object.
func value(_ context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(in, &p); err != nil {
		return nil, err
	}
	if p.Value == nil {
		return json.RawMessage("null"), nil
	}
	return p.Value, nil
}

func delay(ctx context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	var p struct {
		MS    int64           `json:"ms"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(in, &p); err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(p.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if p.Value == nil {
		p.Value = json.RawMessage("null")
	}
	return json.Marshal(map[string]any{"slept": p.MS, "value": p.Value})
}

func fail(_ context.Context, in json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Message string `json:"message"`
		Reject  bool   `json:"reject"`
		Code    string `json:"code"`
	}
	json.Unmarshal(in, &p)
	if p.Message == "" {
		p.Message = "Deliberate failure"
	}
	switch {
	case p.Reject:
		p.Code = venue.EFORBIDDEN
	case p.Code == "":
		p.Code = venue.EINVALID
	}
	return nil, venue.Errorf(p.Code, "%s", p.Message)
}

func never(ctx context.Context, _ json.RawMessage, _ *runtime.Env) (json.RawMessage, error) {
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func ask(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Question json.RawMessage `json:"question"`
		Auth     bool            `json:"auth"`
	}
	json.Unmarshal(in, &p)
	if p.Question == nil {
		p.Question = json.RawMessage(`"Reply with any JSON value to continue"`)
	}
	askFor := env.Ask
	if p.Auth {
		askFor = env.AskAuth
	}
	reply, err := askFor(ctx, p.Question)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]json.RawMessage{"reply": reply})
}

// reveal resolves a secret and puts its value in the output, which the
// engine must then mask in the job record.
func reveal(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(in, &p)
	name, err := venue.ParseSecretRef(p.Secret)
	if err != nil {
		return nil, err
	}
	v, err := env.Secret(ctx, name)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"value": v, "note": fmt.Sprintf("the value of %s", p.Secret)})
}
