package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// maxPinnedTools bounds the pins PinnedOperations resolves: each costs a
// read of what it names, and a door lists them on every tools/list.
const maxPinnedTools = 256

// maxPinnedBytes bounds the metadata of the pins PinnedOperations returns,
// all of them together: a pin may hold 4 MiB of metadata inline, and 256
// of them made every listing (uncached on REST) read, parse and send 1 GiB;
// five concurrent GET /api/v1/operations took a venue to 7.6 GB. Pins past
// it are left out of the listing (each is still invoked by o/<name>).
const maxPinnedBytes = 1 << 20

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
	total := 0
	for _, name := range res.Keys {
		if name == "mcp" {
			continue
		}
		op, err := e.Operation(ctx, "o/"+name)
		if err != nil {
			continue
		}
		if total += len(op.Meta) + len(op.Input) + len(op.Output); total > maxPinnedBytes {
			break
		}
		pinned := *op
		pinned.Path, pinned.Name, pinned.ToolName = "o/"+name, "o:"+name, venue.SnakeCase(name)
		ops = append(ops, &pinned)
	}
	return ops, nil
}
