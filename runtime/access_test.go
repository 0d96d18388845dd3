package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
)

func TestEngine_Authorize(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) {
		c.Access = runtime.AccessPolicy{Anonymous: []string{venue.AbilityRead, venue.AbilityInvoke}, Admins: []string{"did:key:admin"}}
	})
	venueDID := h.Identity().DID
	public := h.PublicCaller().DID
	as := func(c venue.Caller) context.Context { return venue.WithCaller(context.Background(), c) }
	alice := venue.Caller{DID: "did:key:alice"}
	bob := venue.Caller{DID: "did:key:bob"}.WithGrants(venue.Capability{With: "did:key:alice/w/shared", Can: "crud/read"})
	agent := venue.Caller{DID: "did:key:alice"}.Bounded([]venue.Capability{{With: "did:key:alice/w/scratch", Can: "crud"}})
	shared := venue.Capability{With: "did:key:alice/w/shared", Can: "crud/read"}
	lapsed := venue.Caller{DID: "did:key:bob"}.WithGrantsUntil(time.Now().Add(-time.Second), shared)
	current := venue.Caller{DID: "did:key:bob"}.WithGrantsUntil(time.Now().Add(time.Hour), shared)
	renewed := lapsed.WithGrantsUntil(time.Now().Add(time.Hour), shared)
	anon := h.PublicCaller()
	for _, tc := range []struct {
		name      string
		caller    venue.Caller
		with, can string
		wantCode  string
	}{
		{"own namespace, any ability", alice, "did:key:alice/w/notes", venue.AbilityWrite, ""},
		{"own agent creation", alice, "did:key:alice/g", venue.AbilityAgentCreate, ""},
		{"own skillset", alice, "did:key:alice/w/skills", venue.AbilityWrite, ""},
		{"another's namespace", alice, "did:key:bob/w/notes", venue.AbilityRead, venue.EFORBIDDEN},
		{"another's agent creation", alice, "did:key:bob/g", venue.AbilityAgentCreate, venue.EFORBIDDEN},
		{"granted path", bob, "did:key:alice/w/shared/doc", venue.AbilityRead, ""},
		{"granted path, other ability", bob, "did:key:alice/w/shared/doc", venue.AbilityWrite, venue.EFORBIDDEN},
		{"granted path, sibling", bob, "did:key:alice/w/shared2", venue.AbilityRead, venue.EFORBIDDEN},
		{"grant whose proof has expired", lapsed, "did:key:alice/w/shared/doc", venue.AbilityRead, venue.EFORBIDDEN},
		{"grant whose proof has not expired", current, "did:key:alice/w/shared/doc", venue.AbilityRead, ""},
		{"expired grant beside a current one", renewed, "did:key:alice/w/shared/doc", venue.AbilityRead, ""},
		{"venue-wide ability, not an admin", alice, venueDID, venue.AbilityMCPManage, venue.EFORBIDDEN},
		{"venue-wide ability, admin", venue.Caller{DID: "did:key:admin"}, venueDID, venue.AbilityMCPManage, ""},
		{"anonymous reads its namespace", anon, public + "/w/x", venue.AbilityRead, ""},
		{"anonymous invokes", anon, public + "/j", venue.AbilityInvoke, ""},
		{"anonymous may not write", anon, public + "/w/x", venue.AbilityWrite, venue.EUNAUTHORIZED},
		{"anonymous may not create agents", anon, public + "/g", venue.AbilityAgentCreate, venue.EUNAUTHORIZED},
		{"anonymous may not manage MCP", anon, venueDID, venue.AbilityMCPManage, venue.EUNAUTHORIZED},
		{"bound caller inside its bound", agent, "did:key:alice/w/scratch/x", venue.AbilityWrite, ""},
		{"bound caller outside its bound, though it owns it", agent, "did:key:alice/w/notes", venue.AbilityRead, venue.EFORBIDDEN},
		{"bound caller may not create agents", agent, "did:key:alice/g", venue.AbilityAgentCreate, venue.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.Authorize(as(tc.caller), tc.with, tc.can)
			if venue.ErrorCode(err) != tc.wantCode && !(tc.wantCode == "" && err == nil) {
				t.Fatalf("err = %v, want %q", err, tc.wantCode)
			}
		})
	}
	t.Run("no caller is unauthenticated", func(t *testing.T) {
		if err := h.Authorize(context.Background(), "did:key:alice", "crud/read"); venue.ErrorCode(err) != venue.EUNAUTHORIZED {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestEngine_WithProofs(t *testing.T) {
	h := mustEngine(t)
	id := h.Identity()
	admin := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"})
	grant, err := ucan.Issue(id.Key, id.DID, "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK",
		[]venue.Capability{{With: id.DID, Can: venue.AbilityMCPManage}}, nil, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Authorize(admin, id.DID, venue.AbilityMCPManage); venue.ErrorCode(err) != venue.EFORBIDDEN {
		t.Fatalf("before the grant: %v", err)
	}
	ctx, err := h.WithProofs(admin, []string{grant})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Authorize(ctx, id.DID, venue.AbilityMCPManage); err != nil {
		t.Fatalf("a venue-issued grant of mcp/manage: %v", err)
	}
	if _, err := h.WithProofs(h.alice, []string{grant}); venue.ErrorCode(err) != venue.EFORBIDDEN {
		t.Fatalf("someone else's grant: %v", err)
	}
}

// TestEngine_GrantExpiredWithinLeeway: a UCAN whose exp passed a few
// seconds ago passes the verifier (the clock skew it forgives) but grants
// nothing past its exp; the refusal says the grant expired rather than
// asking for a UCAN the caller just presented.
func TestEngine_GrantExpiredWithinLeeway(t *testing.T) {
	h := mustEngine(t)
	id := h.Identity()
	const admin = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
	exp := time.Now().Add(-5 * time.Second)
	grant, err := ucan.Issue(id.Key, id.DID, admin, []venue.Capability{{With: id.DID, Can: venue.AbilityMCPManage}}, nil, exp)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := h.WithProofs(venue.WithCaller(context.Background(), venue.Caller{DID: admin}), []string{grant})
	if err != nil {
		t.Fatalf("within the leeway the token passes: %v", err)
	}
	err = h.Authorize(ctx, id.DID, venue.AbilityMCPManage)
	if want := "expired at " + exp.UTC().Truncate(time.Second).Format(time.RFC3339) + ": present a current UCAN"; venue.ErrorCode(err) != venue.EFORBIDDEN || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want EFORBIDDEN saying %q", err, want)
	}
}
