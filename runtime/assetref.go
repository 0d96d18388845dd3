package runtime

import (
	"context"
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
)

// ResolveAsset finds the asset a reference names, reading references as
// invoke does: an asset id (0x and hex, bare hex, a/<hex>, /a/<hex>), a DID
// URL of this venue or of the caller (<did>/a/<hex>, <did>/w/...), or a
// path the caller may read in w/, o/ or v/ that holds an asset id (a
// string; followed once) or asset metadata inline (an object, as a pin or
// a catalog entry holds it). It returns the asset's id and its metadata:
// byte for byte as registered for a stored asset, as kept at the path
// otherwise.
// Returns EINVALID for a string that is no asset reference, ENOTFOUND when
// nothing is there, and the lattice's errors for a path the caller may not
// read.
func (e *Engine) ResolveAsset(ctx context.Context, ref string) (venue.AssetID, []byte, error) {
	if id, err := venue.ParseAssetID(ref); err == nil {
		return e.storedAsset(ctx, ref, id)
	}
	c, err := e.caller(ctx)
	if err != nil {
		return venue.AssetID{}, nil, err
	}
	r, err := venue.ParseOpRef(ref)
	if _, perr := venue.ParsePath(ref); err != nil && perr != nil && strings.Contains(ref, "/") && !strings.HasPrefix(ref, "did:") {
		return venue.AssetID{}, nil, perr // a malformed path: say what is wrong with it
	}
	if err != nil || r.Kind == venue.RefName {
		return venue.AssetID{}, nil, venue.Errorf(venue.EINVALID, "Invalid asset ID: %s (want 0x and 64 hex digits, a/<hex>, "+
			"this venue's DID URL <did>/a/<hex>, or a path in w/, o/ or v/ holding an asset)", clipRef(ref))
	}
	if r.Kind == venue.RefDID && r.DID != e.id.DID && r.DID != c.DID {
		return venue.AssetID{}, nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s (a DID URL must name this venue, %s)", clipRef(ref), e.id.DID)
	}
	if r.Path.Segments == nil {
		return e.storedAsset(ctx, ref, r.Asset)
	}
	return e.assetAt(ctx, ref, r.Path)
}

// assetAt reads the asset held at path p in the caller's view.
func (e *Engine) assetAt(ctx context.Context, ref string, p venue.Path) (venue.AssetID, []byte, error) {
	var none venue.AssetID
	switch p.Namespace() {
	case venue.NSWorkspace, venue.NSPins, venue.NSVenue:
	default:
		return none, nil, venue.Errorf(venue.EINVALID, "Invalid asset ID: %s (a path naming an asset must be in w/, o/ or v/)", clipRef(ref))
	}
	res, err := e.Read(ctx, p.String(), e.cfg.MaxMetaSize)
	switch {
	case err != nil:
		return none, nil, err
	case !res.Exists:
		return none, nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s (nothing is stored at %s)", clipRef(ref), p)
	case res.Truncated:
		return none, nil, venue.Errorf(venue.ETOOLARGE, "The value at %s is larger than asset metadata may be (%d bytes)", p, e.cfg.MaxMetaSize)
	}
	var target string
	if json.Unmarshal(res.Value, &target) == nil {
		id, err := venue.ParseAssetID(target)
		if err != nil {
			return none, nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s (%s holds a string that is not an asset id)", clipRef(ref), p)
		}
		return e.storedAsset(ctx, ref, id)
	}
	if typeOf(res.Value) != "Map" {
		return none, nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s (%s holds neither an asset id nor metadata)", clipRef(ref), p)
	}
	if err := refuseMetaVariants(res.Value); err != nil {
		return none, nil, err
	}
	id, err := venue.AssetIDOf(res.Value)
	if err != nil {
		return none, nil, venue.Errorf(venue.EINVALID, "The metadata at %s cannot be hashed: %s", p, venue.ErrorMessage(err))
	}
	return id, res.Value, nil
}

// storedAsset returns a registered asset's metadata, its absence worded
// with the reference as the caller gave it.
func (e *Engine) storedAsset(ctx context.Context, ref string, id venue.AssetID) (venue.AssetID, []byte, error) {
	meta, err := e.assetMeta(ctx, id)
	if venue.ErrorCode(err) == venue.ENOTFOUND {
		return id, nil, venue.Errorf(venue.ENOTFOUND, "Asset not found: %s", clipRef(ref))
	}
	return id, meta, err
}

// clipRef shortens a reference before it is echoed in an error.
func clipRef(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
