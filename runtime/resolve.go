package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	venue "github.com/gridvenue/venue"
)

// resolve finds the operation a reference names, as the caller sees it,
// with the secret fields of its adapter marked whatever its metadata says.
// Returns EINVALID with the spec's "Cannot resolve operation" message when
// nothing is found, so callers can tell a typo from a failure.
func (e *Engine) resolve(ctx context.Context, c venue.Caller, ref string) (*venue.Operation, error) {
	if op, ok := e.cat.byRef[ref]; ok {
		return e.cat.withSecretFields(op), nil
	}
	r, err := venue.ParseOpRef(ref)
	if err != nil {
		return nil, err
	}
	op, err := e.resolveRef(ctx, c, r, true)
	if err != nil {
		return nil, err
	}
	return e.cat.withSecretFields(op), nil
}

// resolveRef follows at most one indirection (a registered name, or a pin
// holding an asset id) so references cannot loop.
func (e *Engine) resolveRef(ctx context.Context, c venue.Caller, r venue.OpRef, follow bool) (*venue.Operation, error) {
	switch r.Kind {
	case venue.RefName:
		target, ok := e.cfg.Names[r.Name]
		if !ok || !follow {
			return nil, venue.UnresolvableOp(r.Raw)
		}
		return e.follow(ctx, c, r.Raw, target)
	case venue.RefDID:
		if r.DID != e.id.DID && r.DID != c.DID {
			return nil, venue.UnresolvableOp(r.Raw)
		}
		if r.Path.Segments == nil {
			return e.assetOp(ctx, r.Raw, r.Asset)
		}
		return e.pathOp(ctx, c, r, follow)
	case venue.RefAsset:
		return e.assetOp(ctx, r.Raw, r.Asset)
	case venue.RefPath:
		return e.pathOp(ctx, c, r, follow)
	}
	return nil, venue.UnresolvableOp(r.Raw)
}

// follow resolves target, which the reference raw (a pin or a registered
// name) holds. When target names no operation the error names raw, the
// reference the caller gave, with target and its own reason after it: the
// caller never wrote target and would not find it.
func (e *Engine) follow(ctx context.Context, c venue.Caller, raw, target string) (*venue.Operation, error) {
	t, err := venue.ParseOpRef(target)
	if err == nil {
		var op *venue.Operation
		if op, err = e.resolveRef(ctx, c, t, false); err == nil {
			return op, nil
		}
	}
	inner, msg := venue.UnresolvableOp(target).Message, venue.ErrorMessage(err)
	if !strings.HasPrefix(msg, inner) {
		return nil, err // found, but not an operation, or the store failed: its own message says so
	}
	why := msg[len(inner):]
	if why == "" && t.Kind == venue.RefAsset {
		// The usual slip: the pin was written before the asset was
		// registered, or names an id the registration did not return.
		why = ": no asset with that id is registered on this venue (register the operation's metadata with POST /api/v1/assets, and pin the id it answers)"
	}
	return nil, venue.UnresolvableOpBecause(raw, "it holds the reference "+clipRef(target)+", which resolves to no operation"+why)
}

// pathOp resolves v/ paths in the catalog and o/ or w/ paths in the caller's
// workspace, where a pin holds operation metadata inline or an asset id.
func (e *Engine) pathOp(ctx context.Context, c venue.Caller, r venue.OpRef, follow bool) (*venue.Operation, error) {
	path := r.Path.String()
	switch r.Path.Namespace() {
	case venue.NSVenue:
		if op, ok := e.cat.byPath[path]; ok {
			return op, nil
		}
		if op, err := e.venueOp(ctx, r.Path); op != nil || err != nil {
			return op, err
		}
	case venue.NSPins, venue.NSWorkspace:
		if c.Bound() != nil {
			// readValue checks nothing: a caller confined to some of its own
			// namespace (a UCAN sent as the bearer, an agent on its caps)
			// resolves only what it may read. A share of w/notes read every
			// string of the issuer's w/ and o/ through "it holds the
			// reference ...", and every operation stored there.
			if err := e.Authorize(venue.WithCaller(ctx, c), c.DID+"/"+path, venue.AbilityRead); err != nil {
				return nil, err
			}
		}
		v, ok, err := e.readValue(ctx, c.DID, r.Path, e.readCap())
		if err != nil {
			return nil, err
		}
		if ok && len(v) > 0 && v[0] == '{' {
			// Held to the rules of registered metadata: a hidden "SHA256"
			// beside content.sha256 would run other code than the pin shows.
			if err := refuseMetaVariants(v); err != nil {
				return nil, err
			}
			return venue.ParseOperation(path, v)
		}
		var target string
		if ok && json.Unmarshal(v, &target) == nil {
			if !follow {
				return nil, venue.UnresolvableOpBecause(r.Raw, fmt.Sprintf(
					"it holds the reference %s, and a pin's reference is followed once: pin an operation, such as v/ops/... or a/<hash>, directly", clipRef(target)))
			}
			return e.follow(ctx, c, r.Raw, target)
		}
	}
	return nil, venue.UnresolvableOp(r.Raw)
}

func (e *Engine) assetOp(ctx context.Context, raw string, id venue.AssetID) (*venue.Operation, error) {
	if op := e.cat.byAsset[id]; op != nil {
		return op, nil
	}
	if op := e.schemas.op(id); op != nil {
		return op, nil
	}
	meta, err := e.store.Asset(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return nil, venue.UnresolvableOp(raw)
	}
	if err != nil {
		return nil, err
	}
	op, err := venue.ParseOperation("a/"+id.Hex(), meta)
	if err != nil {
		return nil, err
	}
	e.schemas.putOp(id, op)
	return op, nil
}

// checkNames makes sure every configured name resolves to a catalog path or
// asset: a name that points nowhere is a configuration mistake.
func (e *Engine) checkNames() error {
	for name, target := range e.cfg.Names {
		r, err := venue.ParseOpRef(name)
		if err != nil || r.Kind != venue.RefName {
			return fmt.Errorf("operation name %q: names are letters, digits, '-', '_' and '.'", name)
		}
		t, err := venue.ParseOpRef(target)
		if err != nil {
			return fmt.Errorf("operation name %q: target %q is not an operation reference", name, target)
		}
		if t.Kind == venue.RefName {
			if next, ok := e.cfg.Names[t.Name]; ok {
				return fmt.Errorf("operation name %q: target %q is another name, and a name is followed one step only: give its target %q", name, target, next)
			}
			return fmt.Errorf("operation name %q: target %q is no catalog path, pin, asset or DID URL", name, target)
		}
		if t.Kind == venue.RefPath && t.Path.Namespace() == venue.NSVenue && e.cat.byPath[t.Path.String()] == nil {
			return fmt.Errorf("operation name %q: no catalog entry at %s", name, target)
		}
	}
	return nil
}

// schemaCache keeps compiled input schemas and parsed asset operations.
// Both are keyed by the metadata's hash, so entries never go stale; the
// cache is emptied when it grows past its bound.
type schemaCache struct {
	mu      sync.Mutex
	schemas map[venue.AssetID]*compiledSchema
	outputs map[venue.AssetID]*compiledSchema // of uploaded operations (outputschema.go)
	ops     map[venue.AssetID]*venue.Operation
}

const schemaCacheMax = 4096

func (s *schemaCache) op(id venue.AssetID) *venue.Operation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops[id]
}

func (s *schemaCache) putOp(id venue.AssetID, op *venue.Operation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ops == nil || len(s.ops) >= schemaCacheMax {
		s.ops = map[venue.AssetID]*venue.Operation{}
	}
	s.ops[id] = op
}

// compiled returns the schema kept in *m (s.schemas or s.outputs) for id.
func (s *schemaCache) compiled(m *map[venue.AssetID]*compiledSchema, id venue.AssetID) (*compiledSchema, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := (*m)[id]
	return c, ok
}

// putCompiled keeps c in *m for id, starting the map afresh when full.
func (s *schemaCache) putCompiled(m *map[venue.AssetID]*compiledSchema, id venue.AssetID, c *compiledSchema) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *m == nil || len(*m) >= schemaCacheMax {
		*m = map[venue.AssetID]*compiledSchema{}
	}
	(*m)[id] = c
}
