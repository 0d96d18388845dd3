package venue

import "strings"

// OpRefKind says which form an operation reference takes.
type OpRefKind int

// The forms of operation reference the spec accepts.
const (
	RefPath  OpRefKind = iota + 1 // a lattice path: v/ops/core/read, o/<name>, w/...
	RefAsset                      // a/<hash>, 0x<hash> or bare hex
	RefName                       // a name registered with the venue
	RefDID                        // a DID URL: did:web:host/v/ops/..., did:...:/a/<hash>, or an asset's DID did:web:host:a:<hash>
)

// OpRef is a parsed operation reference. The display form "core:read" is not
// one: it names an operation for people, not for invoke.
type OpRef struct {
	Kind  OpRefKind
	Raw   string  // as given
	Path  Path    // RefPath, and RefDID with a path part
	Asset AssetID // RefAsset, and RefDID naming an asset
	Name  string  // RefName
	DID   string  // RefDID: the DID before the path
}

// MaxRefLen bounds an operation reference.
const MaxRefLen = 2048

// UnresolvableOp is the error for a reference that names no operation, with
// the exact message of the spec.
func UnresolvableOp(ref string) *Error {
	return Errorf(EINVALID, "Error invoking operation: IllegalArgumentException:Cannot resolve operation: %s", clip(ref))
}

// UnresolvableOpBecause is UnresolvableOp with the reason after it, for a
// reference that exists but cannot be followed to an operation.
func UnresolvableOpBecause(ref, why string) *Error {
	return Errorf(EINVALID, "Error invoking operation: IllegalArgumentException:Cannot resolve operation: %s (%s)", clip(ref), why)
}

// ParseOpRef reads an operation reference. Returns EINVALID with the spec's
// "Cannot resolve operation" message for anything that is not one of its forms.
func ParseOpRef(s string) (OpRef, error) {
	ref := OpRef{Raw: s}
	switch {
	case s == "" || len(s) > MaxRefLen:
		return ref, UnresolvableOp(s)
	case strings.HasPrefix(s, "did:"):
		return parseDIDRef(ref)
	case isHexAssetID(s):
		id, _ := ParseAssetID(s)
		ref.Kind, ref.Asset = RefAsset, id
		return ref, nil
	case strings.Contains(s, "/"):
		return parsePathRef(ref, s)
	case isRegisteredName(s):
		ref.Kind, ref.Name = RefName, s
		return ref, nil
	}
	if name, ok := strings.CutPrefix(s, "o:"); ok && name != "" {
		// The listings show a pin o/<name> as o:<name>, which a client
		// then sends back.
		return ref, UnresolvableOpBecause(s, "a pin is invoked by its path, o/"+name+"; o:"+name+" is the name listings show it by")
	}
	return ref, UnresolvableOp(s)
}

func parsePathRef(ref OpRef, s string) (OpRef, error) {
	p, err := ParsePath(s)
	if err != nil {
		return ref, UnresolvableOp(ref.Raw)
	}
	if p.Namespace() == NSAssets {
		if len(p.Segments) != 2 || !isHexAssetID(p.Segments[1]) {
			return ref, UnresolvableOp(ref.Raw)
		}
		ref.Kind, ref.Asset = RefAsset, mustAssetID(p.Segments[1])
		return ref, nil
	}
	ref.Kind, ref.Path = RefPath, p
	return ref, nil
}

// parseDIDRef splits "did:method:id/path" at the first slash. The DID part is
// checked against the venue's own DID when the reference is resolved.
func parseDIDRef(ref OpRef) (OpRef, error) {
	did, rest, ok := strings.Cut(ref.Raw, "/")
	if i := strings.LastIndex(did, ":a:"); !ok && i > 0 && strings.Count(did[:i], ":") >= 2 && isHexAssetID(did[i+3:]) {
		// An asset's own DID, <venue DID>:a:<hex>, whose document the venue
		// serves at /a/<hex>/did.json.
		ref.Kind, ref.DID, ref.Asset = RefDID, did[:i], mustAssetID(did[i+3:])
		return ref, nil
	}
	if !ok || rest == "" || strings.Count(did, ":") < 2 {
		return ref, UnresolvableOp(ref.Raw)
	}
	inner, err := parsePathRef(OpRef{Raw: ref.Raw}, rest)
	if err != nil {
		return ref, err
	}
	inner.Kind, inner.DID = RefDID, did
	return inner, nil
}

func isHexAssetID(s string) bool {
	_, err := ParseAssetID(s)
	return err == nil && !strings.HasPrefix(s, "a/") && !strings.HasPrefix(s, "/")
}

func mustAssetID(s string) AssetID {
	id, _ := ParseAssetID(s)
	return id
}

// isRegisteredName accepts the names operations may be registered under:
// letters, digits, '-', '_' and '.', starting with a letter or digit. A colon
// is never allowed, which is what keeps "core:read" out.
func isRegisteredName(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '-' && r != '_' && r != '.') {
			return false
		}
	}
	return s != ""
}
