package runtime

import (
	"context"
	"strings"

	venue "github.com/gridvenue/venue"
)

// callerFor returns whose namespace path is in, and the parsed path, once
// the request's caller is allowed ability can there. A plain path ("w/notes")
// is in the caller's own namespace. A path qualified by a DID
// ("did:key:z6Mk.../w/notes") is in that DID's, and needs a grant of can on
// it (a UCAN the owner issued); the caller returned is then the owner, so
// the read or write lands in the owner's namespace and nowhere else.
// Returns EINVALID for a malformed path and EFORBIDDEN (EUNAUTHORIZED for
// anonymous callers) without the capability, whether or not anything is
// there.
func (e *Engine) callerFor(ctx context.Context, path, can string) (venue.Caller, venue.Path, error) {
	c, err := e.caller(ctx)
	if err != nil {
		return c, venue.Path{}, err
	}
	owner, p, err := ownedPath(path)
	if err != nil {
		return c, p, err
	}
	if owner == "" {
		owner = c.DID
	}
	if ns := p.Namespace(); can == venue.AbilityRead && (ns == venue.NSVenue || ns == venue.NSAssets) {
		return c, p, nil // shared by the venue: readable by all
	}
	if owner == c.DID {
		err := e.authorizeOwn(ctx, c, can, p.String())
		if err == nil && len(p.Segments) == 1 && p.Namespace() == venue.NSJobs {
			err = shareLists(c)
		}
		return c, p, err
	}
	if err := e.Authorize(ctx, owner+"/"+p.String(), can); err != nil {
		return c, p, err
	}
	return venue.Caller{DID: owner}, p, nil
}

// ownedPath reads a path as callerFor does: the DID it begins with ("" for
// none: the caller's own namespace) and the path in that namespace.
// Returns EINVALID for a malformed path or DID.
func ownedPath(path string) (string, venue.Path, error) {
	owner, rel := "", path
	if strings.HasPrefix(path, "did:") {
		owner, rel, _ = strings.Cut(path, "/")
		if len(owner) > venue.MaxPathLen {
			// Bounded as the path after it is: a DID of megabytes would
			// be quoted into every error about it.
			return "", venue.Path{}, venue.Errorf(venue.EINVALID, "The DID a path begins with is too long: %d bytes, the limit is %d", len(owner), venue.MaxPathLen)
		}
		if !venue.ValidDID(owner) {
			// No grant could ever name it: a capability error would only
			// send the caller looking for one.
			return "", venue.Path{}, venue.Errorf(venue.EINVALID, "Path %q begins with %q, which is not a DID: write did:<method>:<id>/<namespace>/..., e.g. did:key:z6Mk.../w/notes", clipRef(path), clipRef(owner))
		}
	}
	p, err := venue.ParsePath(rel)
	return owner, p, err
}
