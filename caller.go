package venue

import "context"

// Caller is who makes a request: a DID, and whether the venue authenticated
// it or treats it as the shared anonymous identity.
type Caller struct {
	DID       string
	Anonymous bool
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
