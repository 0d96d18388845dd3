package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/ucan"
	"github.com/gridvenue/venue/sql"
)

// revocationsDown is a store that cannot say which UCANs are revoked.
type revocationsDown struct{ *sql.Store }

func (revocationsDown) TokenIDsLive(context.Context, [][]byte, int64) (bool, error) {
	return false, errors.New("connection refused")
}

// TestAuth_RevocationsUnreadable: a UCAN that cannot be checked against
// revocations is neither taken nor called invalid: the request is
// refused as 503, to try again, wherever the UCAN came. Sent in
// X-Covia-Ucans it was answered 401, which sends a client to sign in
// again, which mends nothing.
func TestAuth_RevocationsUnreadable(t *testing.T) {
	ctx := context.Background()
	st, err := sql.Open(ctx, "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := runtime.New(ctx, runtime.Config{BaseURL: "http://127.0.0.1:8080"}, runtime.Deps{Store: revocationsDown{st}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); e.Close(); st.Close() })

	alice, aliceKey := newKey(t)
	bob, bobKey := newKey(t)
	bobTok, _ := SelfIssued(bobKey, a.id.DID, time.Minute)
	toBob, _ := ucan.Issue(aliceKey, alice, bob, []venue.Capability{{With: alice + "/w", Can: "crud/read"}}, nil, time.Now().Add(time.Hour))
	asBearer, _ := ucan.Issue(aliceKey, alice, a.id.DID, []venue.Capability{{With: alice + "/w", Can: "crud/read"}}, nil, time.Now().Add(time.Hour))
	for _, tc := range []struct {
		name   string
		bearer string
		ucans  string
	}{
		{"a UCAN as the bearer", asBearer, ""},
		{"a UCAN in X-Covia-Ucans", bobTok, toBob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/jobs", nil)
			r.Header.Set("Authorization", "Bearer "+tc.bearer)
			if tc.ucans != "" {
				r.Header.Set("X-Covia-Ucans", tc.ucans)
			}
			if _, err := a.Authenticate(r); venue.ErrorCode(err) != venue.EUNAVAILABLE {
				t.Fatalf("Authenticate = %v, want %s", err, venue.EUNAVAILABLE)
			}
			w := httptest.NewRecorder()
			a.Middleware(http.NotFoundHandler()).ServeHTTP(w, r)
			if w.Code != http.StatusServiceUnavailable {
				t.Fatalf("status %d %s, want 503", w.Code, w.Body)
			}
		})
	}
}
