package preview

import (
	"context"
	"fmt"
	"strings"

	"github.com/gridvenue/venue/ops/internal/jsonv"
)

// Budgets of one inspect, in bytes of preview text.
const (
	DefaultBudget = 500
	MinBudget     = 10
)

// MaxPaths bounds the paths of one inspect, repeats included: at the
// smallest budget a thousand previews are already more than anyone reads.
// A path listed again costs no read, and the reads of the different ones
// are bounded by ReadTotal.
const MaxPaths = 1000

// ReadMax is the largest value inspect reads whole; a larger one is
// described from its listing instead of loaded (into the guest, which has
// 64 MiB).
const ReadMax = 1_000_000

// ReadTotal bounds the bytes one inspect reads over all its paths, counting
// each value's full size, read whole or not: once it is spent the paths
// left are not read. A thousand paths of a large value would otherwise
// read gigabytes for one request.
const ReadTotal = 16 * ReadMax

// summaryKeys is how many keys of a too-large map inspect lists.
const summaryKeys = 20

// ReadResult is what a Reader finds at a path.
type ReadResult struct {
	Exists    bool
	Value     []byte // the value's JSON, when it exists and is not truncated
	Truncated bool   // larger than the read's maxSize: Type and Size describe it
	Type      string // Map, Vector, String, Number, Boolean or Null, when truncated
	Size      int    // the value's size in bytes, when truncated (0 if unknown)
}

// Reader is the lattice as one caller sees it. Its errors end the inspect
// and are returned as they are.
type Reader interface {
	// Read returns the value at path, truncated past maxSize bytes.
	Read(ctx context.Context, path string, maxSize int) (ReadResult, error)
	// Keys returns the number of entries of the map or vector at path and,
	// for a map, the first limit keys in key order.
	Keys(ctx context.Context, path string, limit int) (count int, keys []string, err error)
}

// Options shape one inspect. Zero values mean the defaults.
type Options struct {
	Budget  int  // bytes of text for all paths together: 0 means DefaultBudget, and less than MinBudget counts as MinBudget
	Compact bool // no spaces after ':' and ','
	Label   bool // start each path's preview with the path and a colon, as core:inspect does for a list of paths
}

// Inspect previews the value at each path, in an equal share of the budget
// (at least MinBudget each), one line a path. An absent path previews as
// an /* absent */ note. A path listed again is read and rendered once: it
// shows the same text on every line it has, and costs no read.
// It needs 1 to MaxPaths paths.
func Inspect(ctx context.Context, r Reader, paths []string, opts Options) (string, error) {
	if len(paths) == 0 || len(paths) > MaxPaths {
		return "", fmt.Errorf("inspect takes 1 to %d paths, got %d", MaxPaths, len(paths))
	}
	budget := opts.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	share := max(max(budget, MinBudget)/len(paths), MinBudget)
	left := ReadTotal
	in := inspection{ctx: ctx, r: r, render: NewRenderer(opts.Compact, nil), readLeft: &left}
	lines := make([]string, len(paths))
	previews := make(map[string]string, len(paths))
	for i, path := range paths {
		text, seen := previews[path]
		if !seen {
			var err error
			if text, err = in.path(path, share); err != nil {
				return "", err
			}
			previews[path] = text
		}
		lines[i] = text
		if opts.Label {
			lines[i] = path + in.render.colon() + text
		}
	}
	return strings.Join(lines, "\n"), nil
}

// inspection is one Inspect under way: its steps and the bytes it may
// still read are shared by every path.
type inspection struct {
	ctx      context.Context
	r        Reader
	render   Renderer
	readLeft *int
}

// path previews the value at path in about budget bytes.
func (in inspection) path(path string, budget int) (string, error) {
	if *in.readLeft <= 0 {
		return "…" + in.render.note(fmt.Sprintf("not read: the inspect has read its %d bytes", ReadTotal)), nil
	}
	res, err := in.r.Read(in.ctx, path, min(ReadMax, *in.readLeft))
	*in.readLeft -= readCost(res)
	switch {
	case err != nil:
		return "", err
	case !res.Exists:
		return strings.TrimSpace(in.render.note("absent")), nil
	case res.Truncated:
		return in.large(path, res, budget)
	}
	v, err := jsonv.Parse(res.Value)
	if err != nil {
		return "", fmt.Errorf("value at %s: %v", path, err)
	}
	return in.render.value(v, budget), nil
}

// readCost is what a read counts against ReadTotal: the value's full size,
// read whole or not. A value too large whose size is unknown (j or a past
// what one read gathers, which the engine gathers before it knows) counts
// as ReadMax, or a thousand such paths would count for nothing and each
// gather a thousand records and count the rest.
func readCost(res ReadResult) int {
	if res.Truncated && res.Size == 0 {
		return ReadMax
	}
	return max(len(res.Value), res.Size)
}

// large describes a value too big to read whole, from its listing.
func (in inspection) large(path string, res ReadResult, budget int) (string, error) {
	r := in.render
	var (
		count int
		keys  []string
	)
	if res.Type == "Map" || res.Type == "Vector" {
		var err error
		if count, keys, err = in.r.Keys(in.ctx, path, summaryKeys); err != nil {
			return "", err
		}
	}
	switch res.Type {
	case "Map":
		return r.largeMap(count, keys, res.Size, budget), nil
	case "Vector":
		return "[…" + r.note(fmt.Sprintf("%s, %d bytes", counted(count, "item"), res.Size)) + "]", nil
	case "String":
		return `"…"` + r.note(fmt.Sprintf("%d bytes", res.Size)), nil
	}
	return "…" + r.note(fmt.Sprintf("%s, %d bytes", strings.ToLower(res.Type), res.Size)), nil
}

// largeMap names as many of the map's first keys as fit the budget.
func (r Renderer) largeMap(count int, keys []string, size, budget int) string {
	head := counted(count, "key")
	if size > 0 { // unknown for j and a past what one read gathers
		head += fmt.Sprintf(", %d bytes", size)
	}
	text := "{…" + r.note(head) + "}"
	for i := range keys {
		names := strings.Join(keys[:i+1], r.comma())
		if i+1 < count {
			names += r.comma() + "…"
		}
		next := "{…" + r.note(head+": "+names) + "}"
		if len(next) > budget {
			break
		}
		text = next
	}
	return text
}
