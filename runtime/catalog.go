package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
)

// CatalogEntry is an operation the venue offers: its metadata (an asset
// with an "operation" object) and the path it is served under, such as
// v/ops/core/read or v/test/ops/echo.
type CatalogEntry struct {
	Path string
	Meta json.RawMessage
	// Value marks a plain read-only value of the v namespace (an agent
	// template at v/agents/templates/<name>), served by the lattice reads
	// but not an operation.
	Value bool
}

// catalog holds the venue's own operations, immutable after New.
type catalog struct {
	byPath  map[string]*venue.Operation
	byName  map[string]*venue.Operation        // display name "core:read" of v/ops entries
	byRef   map[string]*venue.Operation        // references every caller resolves alike: catalog paths, with and without a leading slash
	byAsset map[venue.AssetID]*venue.Operation // every entry by the id of its metadata, which the catalog lists as its asset
	ordered []*venue.Operation                 // v/ops entries by path
	tree    map[string]any                     // the v namespace as nested maps
	secrets map[string][]string                // by adapter ("secret:set"): the fields its entries mark secret
}

// newCatalog parses entries. Every path must sit under v/, every entry must
// be an operation, and paths and display names must be unique among the v/ops
// entries: a broken catalog is a build mistake, caught at start.
func newCatalog(entries []CatalogEntry, info map[string]any) (*catalog, error) {
	c := &catalog{byPath: map[string]*venue.Operation{}, byName: map[string]*venue.Operation{}, byRef: map[string]*venue.Operation{},
		byAsset: map[venue.AssetID]*venue.Operation{}, tree: map[string]any{"info": info}, secrets: map[string][]string{}}
	for _, en := range entries {
		if err := c.add(en); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(c.ordered, func(a, b *venue.Operation) int { return strings.Compare(a.Path, b.Path) })
	return c, nil
}

func (c *catalog) add(en CatalogEntry) error {
	p, err := venue.ParsePath(en.Path)
	if err != nil || p.Namespace() != venue.NSVenue || len(p.Segments) < 3 {
		return fmt.Errorf("catalog entry path %q must be v/<group>/.../<op>", en.Path)
	}
	if en.Value {
		if !json.Valid(en.Meta) {
			return fmt.Errorf("catalog value %s is not JSON", en.Path)
		}
		return c.plant(p.Segments[1:], en.Meta)
	}
	op, err := venue.ParseOperation(en.Path, en.Meta)
	if err != nil {
		return fmt.Errorf("catalog entry %s: %w", en.Path, err)
	}
	if _, dup := c.byPath[en.Path]; dup {
		return fmt.Errorf("catalog entry %s is listed twice", en.Path)
	}
	c.byPath[en.Path] = op
	for _, f := range op.SecretFields {
		if !slices.Contains(c.secrets[op.Name], f) {
			c.secrets[op.Name] = append(c.secrets[op.Name], f)
		}
	}
	c.byRef[en.Path], c.byRef["/"+en.Path] = op, op
	c.byAsset[op.Asset] = op
	if strings.HasPrefix(en.Path, "v/ops/") {
		if other, dup := c.byName[op.Name]; dup {
			return fmt.Errorf("catalog entries %s and %s share the name %s", other.Path, en.Path, op.Name)
		}
		c.byName[op.Name] = op
		c.ordered = append(c.ordered, op)
	}
	return c.plant(p.Segments[1:], op.Meta)
}

// withSecretFields returns op marking secret, besides the fields its own
// metadata names, every field the catalog marks for its adapter: metadata a
// caller wrote (an asset, a pin) copying a built-in adapter cannot unmark
// what that adapter's fields hold, such as secret:set's value.
func (c *catalog) withSecretFields(op *venue.Operation) *venue.Operation {
	var missing []string
	for _, f := range c.secrets[op.Name] {
		if !slices.Contains(op.SecretFields, f) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return op
	}
	marked := *op
	marked.SecretFields = append(slices.Clip(op.SecretFields), missing...)
	return &marked
}

// plant puts meta into the v tree at segs, creating maps on the way.
func (c *catalog) plant(segs []string, meta json.RawMessage) error {
	node := c.tree
	for _, s := range segs[:len(segs)-1] {
		next, ok := node[s].(map[string]any)
		if !ok {
			if _, taken := node[s]; taken {
				return fmt.Errorf("catalog path v/%s passes through an operation", strings.Join(segs, "/"))
			}
			next = map[string]any{}
			node[s] = next
		}
		node = next
	}
	node[segs[len(segs)-1]] = meta
	return nil
}

// Operations returns the venue's catalog (the v/ops entries) in path order.
func (e *Engine) Operations() []*venue.Operation { return e.cat.ordered }

// EntriesFromFS reads catalog entries from the JSON files under dir in
// fsys: the file dir/<a>/<b>.json becomes the entry at prefix/<a>/<b>.
func EntriesFromFS(fsys fs.FS, dir, prefix string) ([]CatalogEntry, error) {
	var out []CatalogEntry
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".json" {
			return err
		}
		meta, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), ".json")
		out = append(out, CatalogEntry{Path: prefix + "/" + rel, Meta: meta})
		return nil
	})
	return out, err
}

// Operation finds an operation by a display name of the catalog ("core:read")
// or by any reference invoke accepts.
// Returns ENOTFOUND if nothing answers to name.
func (e *Engine) Operation(ctx context.Context, name string) (*venue.Operation, error) {
	if op, ok := e.cat.byName[name]; ok {
		return op, nil
	}
	c, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	if venue.HasDotSegment(name) {
		return nil, venue.Errorf(venue.EINVALID, "Operation name %s has a '.' or '..' segment: name the operation by its own path, such as v/ops/core/read", clipRef(name))
	}
	op, err := e.resolve(ctx, c, name)
	if venue.ErrorCode(err) == venue.EINVALID {
		return nil, venue.Errorf(venue.ENOTFOUND, "Operation not found: %s", clipRef(name))
	}
	return op, err
}
