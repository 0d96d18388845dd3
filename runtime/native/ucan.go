package native

import (
	"context"
	"encoding/json"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// issueParams is the input of ucan:issue: the UCAN's own claims.
type issueParams struct {
	Aud string             `json:"aud"`
	Att []venue.Capability `json:"att"`
	Exp int64              `json:"exp"` // seconds since the epoch
}

// ucanIssue signs a UCAN as the venue on behalf of the caller, for grants
// the caller holds (Engine.IssueUCAN).
func ucanIssue(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p issueParams
	if err := json.Unmarshal(in, &p); err != nil {
		return nil, venue.Errorf(venue.EINVALID, "input must be {\"aud\": DID, \"att\": [{\"with\", \"can\"}], \"exp\": seconds since the epoch}")
	}
	e := env.Engine()
	tok, err := e.IssueUCAN(env.Context(ctx), p.Aud, p.Att, time.Unix(p.Exp, 0))
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"token": tok, "iss": e.Identity().DID})
}

// verifyParams is the input of ucan:verify.
type verifyParams struct {
	Token string `json:"token"`
	Aud   string `json:"aud"`  // the audience it must be issued to; "" checks none
	With  string `json:"with"` // with can: whether its grants cover this
	Can   string `json:"can"`
}

// ucanVerify checks a UCAN as this venue would and says what it proves. A
// token that fails is an answer, not an error: valid false and why.
func ucanVerify(_ context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p verifyParams
	if err := json.Unmarshal(in, &p); err != nil || p.Token == "" {
		return nil, venue.Errorf(venue.EINVALID, "input must be {\"token\": UCAN, \"aud\"?: DID, \"with\"?, \"can\"?}")
	}
	if (p.With == "") != (p.Can == "") {
		return nil, venue.Errorf(venue.EINVALID, "give both 'with' and 'can' to ask whether the token authorises them, or neither")
	}
	tok, err := env.Engine().Verifier().Verify(p.Token, p.Aud)
	if venue.ErrorCode(err) == venue.EUNAVAILABLE {
		return nil, err // no verdict: the revocations could not be read
	}
	if err != nil {
		return json.Marshal(verdict{Reason: venue.ErrorMessage(err)})
	}
	out := verdict{Valid: true, Iss: tok.Issuer, Aud: tok.Audience, Exp: tok.Expires.Unix(),
		ChainDepth: &tok.Depth, RootIssuer: tok.Root, Att: tok.Grants}
	if p.With != "" {
		holds := venue.Holds(tok.Grants, p.With, p.Can)
		out.Authorises = &holds
	}
	return json.Marshal(out)
}

// verdict is the output of ucan:verify, in the reference's shape.
type verdict struct {
	Valid      bool               `json:"valid"`
	Reason     string             `json:"reason,omitempty"`
	Iss        string             `json:"iss,omitempty"`
	Aud        string             `json:"aud,omitempty"`
	Exp        int64              `json:"exp,omitempty"`
	ChainDepth *int               `json:"chainDepth,omitempty"`
	RootIssuer string             `json:"rootIssuer,omitempty"`
	Att        []venue.Capability `json:"att,omitempty"`
	Authorises *bool              `json:"authorises,omitempty"`
}

// ucanRevoke revokes a UCAN the caller issued (Engine.RevokeUCAN).
func ucanRevoke(ctx context.Context, in json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	var p struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(in, &p); err != nil || p.Token == "" {
		return nil, venue.Errorf(venue.EINVALID, "input must be {\"token\": the UCAN to revoke, a JWT}")
	}
	r, err := env.Engine().RevokeUCAN(env.Context(ctx), p.Token)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"revoked": true, "id": r.ID, "expires": r.Expires})
}
