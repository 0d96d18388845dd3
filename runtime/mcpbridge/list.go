package mcpbridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Operations returns the bridged tools the caller in ctx may invoke: its
// own bridges' and the venue's, in that order, each sorted by reference.
// The MCP door lists them as tools beside the catalog.
func Operations(ctx context.Context, e *runtime.Engine) ([]*venue.Operation, error) {
	mine, err := bridgedOps(ctx, e, ScopeUser)
	if err != nil {
		return nil, err
	}
	shared, err := bridgedOps(venue.WithCaller(ctx, venue.Caller{DID: e.Identity().DID}), e, ScopeVenue)
	if err != nil {
		return nil, err
	}
	return append(mine, shared...), nil
}

// bridgedOps reads o/mcp of the identity in ctx: bridge → tool → metadata.
func bridgedOps(ctx context.Context, e *runtime.Engine, scope string) ([]*venue.Operation, error) {
	res, err := e.Read(ctx, "o/mcp", readLimit)
	if err != nil || !res.Exists {
		return nil, err
	}
	var bridges map[string]map[string]json.RawMessage
	if json.Unmarshal(res.Value, &bridges) != nil {
		return nil, nil // o/mcp holds something else, written by hand: no tools there
	}
	p := &place{scope: scope}
	var ops []*venue.Operation
	for name, tools := range bridges {
		for seg, meta := range tools {
			op, err := venue.ParseOperation(p.ref(name, seg), meta)
			if err != nil || op.Name != "mcp:call" {
				continue
			}
			ops = append(ops, op)
		}
	}
	slices.SortFunc(ops, func(a, b *venue.Operation) int { return strings.Compare(a.Path, b.Path) })
	return ops, nil
}

// toolsList answers v/ops/mcp/tools-list: the bridges and tools the caller
// sees, optionally only one bridge's or one scope's.
func (b *Bridge) toolsList(ctx context.Context, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var in manageInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "Input is not valid: %v", err)
	}
	type tool struct {
		Name        string `json:"name"`
		Operation   string `json:"operation"`
		Bridge      string `json:"bridge"`
		Scope       string `json:"scope"`
		Remote      string `json:"remoteName"`
		Description string `json:"description,omitempty"`
	}
	type serverInfo struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
		URL   string `json:"url"`
		Total int    `json:"total"`
	}
	out := struct {
		Tools   []tool       `json:"tools"`
		Servers []serverInfo `json:"servers"`
		Total   int          `json:"total"`
	}{Tools: []tool{}, Servers: []serverInfo{}}
	for _, scope := range []string{ScopeUser, ScopeVenue} {
		if in.Scope != "" && in.Scope != scope {
			continue
		}
		pctx := env.Context(ctx)
		if scope == ScopeVenue {
			pctx = env.AsVenue(ctx) // reading the venue's bridges is open to every caller
		}
		p := &place{scope: scope, ctx: pctx, e: env.Engine()}
		recs, err := p.records()
		if err != nil {
			return nil, err
		}
		for _, name := range sortedKeys(recs) {
			if in.Name != "" && in.Name != name {
				continue
			}
			r := recs[name]
			out.Servers = append(out.Servers, serverInfo{Name: name, Scope: scope, URL: r.URL, Total: len(r.Tools)})
		}
		ops, err := bridgedOps(pctx, env.Engine(), scope)
		if err != nil {
			return nil, err
		}
		for _, op := range ops {
			var m toolOp
			json.Unmarshal(op.Meta, &m)
			if in.Name != "" && m.Operation.Bridge != in.Name {
				continue
			}
			out.Tools = append(out.Tools, tool{Name: op.ToolName, Operation: op.Path, Bridge: m.Operation.Bridge,
				Scope: scope, Remote: m.Operation.Remote, Description: op.Description})
		}
	}
	out.Total = len(out.Tools)
	return json.Marshal(out)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
