package venue

import (
	"context"
	"time"
)

// Caller is who makes a request: a DID, and whether the venue authenticated
// it or treats it as the shared anonymous identity.
type Caller struct {
	DID       string
	Anonymous bool
	// Authority is what the caller holds beyond its own namespace, or a
	// bound on it; nil means neither. It is shared and never modified:
	// WithGrants and Bounded return a caller with a new one. (A pointer
	// keeps Caller comparable.)
	Authority *Authority
}

// Authority is what UCANs proved to a caller, and what confines it.
type Authority struct {
	// Grants are capabilities on other owners' resources that the caller
	// proved with UCANs; its own namespace needs none.
	Grants []Capability
	// Until holds, for each of Grants, when the proof behind it expires
	// (the earliest exp of its UCAN chain); a zero time, or no entry, means
	// it does not. Whoever hands a grant on (an agent's caps) keeps it.
	Until []time.Time
	// Bound, when not nil, confines the caller to these capabilities, even
	// in its own namespace: an agent acting on delegated authority.
	Bound []Capability
	// Share names the UCAN the caller sent as its bearer token (its
	// SHA-256, hex), empty for any other caller. Such a token is handed to
	// others as a share of what it grants: its holder follows the jobs
	// begun under it (Job.Share), not the rest of the issuer's.
	Share string
}

// Grants returns the capabilities proved to c.
func (c Caller) Grants() []Capability {
	if c.Authority == nil {
		return nil
	}
	return c.Authority.Grants
}

// Bound returns what confines c, nil if nothing does.
func (c Caller) Bound() []Capability {
	if c.Authority == nil {
		return nil
	}
	return c.Authority.Bound
}

// Share returns the share c acts under (Authority.Share), "" if none.
func (c Caller) Share() string {
	if c.Authority == nil {
		return ""
	}
	return c.Authority.Share
}

// Shared returns c acting under the share named share (Authority.Share).
func (c Caller) Shared(share string) Caller {
	a := c.authority()
	a.Share = share
	c.Authority = &a
	return c
}

// authority returns a copy of c's Authority for a constructor to change.
func (c Caller) authority() Authority {
	if c.Authority == nil {
		return Authority{}
	}
	return *c.Authority
}

// WithGrants returns c also holding grants, which do not expire.
func (c Caller) WithGrants(grants ...Capability) Caller {
	return c.WithGrantsUntil(time.Time{}, grants...)
}

// WithGrantsUntil returns c also holding grants, proved until until (zero:
// no expiry).
func (c Caller) WithGrantsUntil(until time.Time, grants ...Capability) Caller {
	old := c.Grants()
	a := c.authority()
	a.Grants, a.Until = append(append([]Capability(nil), old...), grants...), c.until()
	for len(a.Until) < len(old) {
		a.Until = append(a.Until, time.Time{})
	}
	for range grants {
		a.Until = append(a.Until, until)
	}
	c.Authority = &a
	return c
}

// GrantedUntil reports until when c's grants prove ability can on with:
// the latest expiry among the grants that cover it, zero if one of them
// does not expire, and false if none covers it.
func (c Caller) GrantedUntil(with, can string) (time.Time, bool) {
	var until time.Time
	found := false
	for i, g := range c.Grants() {
		if !g.Covers(with, can) {
			continue
		}
		var u time.Time
		if i < len(c.Authority.Until) {
			u = c.Authority.Until[i]
		}
		if u.IsZero() {
			return time.Time{}, true
		}
		if !found || u.After(until) {
			until = u
		}
		found = true
	}
	return until, found
}

// WithoutGrants returns c holding only what it holds by itself, still
// confined to its bound: what no UCAN proved to it.
func (c Caller) WithoutGrants() Caller {
	if c.Authority == nil {
		return c
	}
	c.Authority = &Authority{Bound: c.Bound(), Share: c.Share()}
	return c
}

func (c Caller) until() []time.Time {
	if c.Authority == nil {
		return nil
	}
	return append([]time.Time(nil), c.Authority.Until...)
}

// Bounded returns c confined to bound (an agent acting for c with the
// capabilities it was delegated); a non-nil empty bound allows nothing.
func (c Caller) Bounded(bound []Capability) Caller {
	if bound == nil {
		bound = []Capability{}
	}
	a := c.authority()
	a.Until, a.Bound = c.until(), bound
	c.Authority = &a
	return c
}

// Holds reports whether one of caps covers ability can on with.
func Holds(caps []Capability, with, can string) bool {
	for _, c := range caps {
		if c.Covers(with, can) {
			return true
		}
	}
	return false
}

type callerKey struct{}

// WithCaller returns a context carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller carried by ctx and whether there was one.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c.DID != ""
}
