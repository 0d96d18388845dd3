package mcpserver

import (
	"context"
	"testing"

	venue "github.com/gridvenue/venue"
)

// byCaller lists, as bridged operations, one tool for an unconfined caller
// (its pin) and none for a confined one, as the venue's lister does.
type byCaller struct{}

func (byCaller) BridgedOperations(ctx context.Context) ([]*venue.Operation, error) {
	c, _ := venue.CallerFrom(ctx)
	if c.Bound() != nil {
		return nil, nil
	}
	return []*venue.Operation{{Path: "o/private", Name: "o:private", ToolName: "private"}}, nil
}

// TestToolsOf_BoundCallerNotCached: the tool cache is keyed by DID, which
// a UCAN sent as the bearer shares with its issuer: a share of w/notes was
// handed the issuer's pins and bridges (and could call them) within 2 s of
// the issuer listing them.
func TestToolsOf_BoundCallerNotCached(t *testing.T) {
	s := New(noEngine{}, Options{Bridged: byCaller{}})
	alice := venue.Caller{DID: "did:key:alice"}
	share := alice.Bounded([]venue.Capability{{With: "did:key:alice/w/notes", Can: venue.AbilityRead}})
	bg := context.Background()
	if s.toolsOf(venue.WithCaller(bg, alice), alice).find("private") == nil {
		t.Fatal("the owner does not see its pin")
	}
	if s.toolsOf(venue.WithCaller(bg, share), share).find("private") != nil {
		t.Fatal("a confined caller was given its issuer's cached tools")
	}
	s.toolCache.reset()
	s.toolsOf(venue.WithCaller(bg, share), share)
	if s.toolsOf(venue.WithCaller(bg, alice), alice).find("private") == nil {
		t.Fatal("the owner was given a confined caller's cached tools")
	}
}
