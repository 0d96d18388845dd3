package venue

import "context"

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
	// Bound, when not nil, confines the caller to these capabilities, even
	// in its own namespace: an agent acting on delegated authority.
	Bound []Capability
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

// WithGrants returns c also holding grants.
func (c Caller) WithGrants(grants ...Capability) Caller {
	a := Authority{Bound: c.Bound(), Grants: append(append([]Capability(nil), c.Grants()...), grants...)}
	c.Authority = &a
	return c
}

// Bounded returns c confined to bound (an agent acting for c with the
// capabilities it was delegated); a non-nil empty bound allows nothing.
func (c Caller) Bounded(bound []Capability) Caller {
	if bound == nil {
		bound = []Capability{}
	}
	a := Authority{Grants: c.Grants(), Bound: bound}
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
