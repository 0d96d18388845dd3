package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// maxPinnedTools bounds the pins PinnedOperations resolves: each costs a
// read of what it names, and a door lists them on every tools/list.
const maxPinnedTools = 256

// PinnedOperations returns the operations the caller in ctx has pinned
// under o/ (o/mcp aside, which holds bridges), each as reached through its
// pin: path o/<name>, display name o:<name>, tool name <name> in
// snake_case. Doors list them beside the catalog, so that a user's own
// operations (an uploaded Wasm module pinned as o/wordcount) are tools an
// assistant sees, not only references a client must know. A pin that names
// no operation is left out.
func (e *Engine) PinnedOperations(ctx context.Context) ([]*venue.Operation, error) {
	res, err := e.List(ctx, "o", 0, maxPinnedTools)
	if err != nil || !res.Exists {
		return nil, err
	}
	var ops []*venue.Operation
	for _, name := range res.Keys {
		if name == "mcp" {
			continue
		}
		op, err := e.Operation(ctx, "o/"+name)
		if err != nil {
			continue
		}
		pinned := *op
		pinned.Path, pinned.Name, pinned.ToolName = "o/"+name, "o:"+name, venue.SnakeCase(name)
		ops = append(ops, &pinned)
	}
	return ops, nil
}
