package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestAuth_OpenState(t *testing.T) {
	a := mustAuth(t, Options{})
	good := loginState{Provider: "mock", State: "s1", Verifier: "v", Expires: time.Now().Add(time.Minute).Unix()}
	other := mustAuth(t, Options{})
	for _, tc := range []struct {
		name, cookie, provider, state string
		ok                            bool
	}{
		{"the venue's own cookie", a.seal(good), "mock", "s1", true},
		{"another venue's cookie", other.seal(good), "mock", "s1", false},
		{"another provider", a.seal(good), "other", "s1", false},
		{"another state", a.seal(good), "mock", "s2", false},
		{"no state", a.seal(good), "mock", "", false},
		{"expired", a.seal(loginState{Provider: "mock", State: "s1", Expires: time.Now().Add(-time.Minute).Unix()}), "mock", "s1", false},
		{"garbage", "x.y", "mock", "s1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := a.openState(stateRequest(tc.cookie), tc.provider, tc.state)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func stateRequest(cookie string) *http.Request {
	r := httptest.NewRequest("GET", "/auth/mock/callback", nil)
	r.AddCookie(&http.Cookie{Name: stateCookie, Value: cookie})
	return r
}

func FuzzOpenState(f *testing.F) {
	a := mustAuth(f, Options{})
	f.Add(a.seal(loginState{Provider: "mock", State: "s", Expires: time.Now().Add(time.Hour).Unix()}), "s")
	f.Add("e30.", "")
	f.Add("", "s")
	f.Fuzz(func(t *testing.T, cookie, state string) {
		r := httptest.NewRequest("GET", "/auth/mock/callback", nil)
		r.Header.Set("Cookie", stateCookie+"="+cookie)
		if st, err := a.openState(r, "mock", state); err == nil && (st.Provider != "mock" || st.State != state) {
			t.Fatalf("accepted %+v for state %q", st, state)
		}
	})
}
