package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
)

// Register mounts the login door on mux: /login, /auth/{provider} and
// /auth/{provider}/callback. None of them needs a caller.
func (a *Auth) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /login", a.loginPage)
	mux.HandleFunc("GET /auth/{provider}", a.start)
	mux.HandleFunc("GET /auth/{provider}/callback", a.callback)
}

type providerLink struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

var loginHTML = template.Must(template.New("login").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Sign in to this venue</h1>
{{if .}}<ul>{{range .}}<li><a href="{{.URL}}">Sign in with {{.Name}}</a></li>{{end}}</ul>
{{else}}<p>This venue has no sign-in providers configured. Use a self-issued token: <code>venued token</code>.</p>{{end}}
</body></html>`))

// loginPage lists the configured providers: HTML for people, JSON for
// clients that ask for it.
func (a *Auth) loginPage(w http.ResponseWriter, r *http.Request) {
	links := []providerLink{}
	for name := range a.providers {
		links = append(links, providerLink{Name: name, URL: a.id.BaseURL + "/auth/" + name})
	}
	slices.SortFunc(links, func(x, y providerLink) int { return strings.Compare(x.Name, y.Name) })
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, map[string]any{"providers": links})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	loginHTML.Execute(w, links)
}

// stateCookie carries a sign-in in progress: which provider, the state the
// provider echoes back, and the PKCE verifier. It is signed with a key only
// the venue holds, so any node of the venue can finish the flow.
const stateCookie = "venue_oauth"

type loginState struct {
	Provider string `json:"p"`
	State    string `json:"s"`
	Verifier string `json:"v"`
	Expires  int64  `json:"e"`
}

// start sends the browser to the provider with a fresh state and PKCE
// challenge.
func (a *Auth) start(w http.ResponseWriter, r *http.Request) {
	p := a.providers[r.PathValue("provider")]
	if p == nil {
		a.unknownProvider(w, r.PathValue("provider"))
		return
	}
	d, _, err := p.discover(r.Context())
	if err != nil {
		a.fail(w, err)
		return
	}
	st := loginState{Provider: p.Name, State: random(24), Verifier: random(48), Expires: time.Now().Add(10 * time.Minute).Unix()}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: a.seal(st), Path: "/auth/" + p.Name, MaxAge: 600,
		HttpOnly: true, Secure: strings.HasPrefix(a.id.BaseURL, "https:"), SameSite: http.SameSiteLaxMode})
	challenge := sha256.Sum256([]byte(st.Verifier))
	scopes := p.Scopes
	if len(scopes) == 0 {
		scopes = []string{"openid", "email", "profile"}
	}
	q := url.Values{"response_type": {"code"}, "client_id": {p.ClientID}, "redirect_uri": {a.redirectURI(p)},
		"scope": {strings.Join(scopes, " ")}, "state": {st.State},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(challenge[:])}, "code_challenge_method": {"S256"}}
	sep := "?"
	if strings.Contains(d.Authorization, "?") {
		sep = "&"
	}
	http.Redirect(w, r, d.Authorization+sep+q.Encode(), http.StatusFound)
}

// callback checks the provider's answer against the state cookie, trades
// the code for the provider's ID token, verifies it, and issues a
// venue-signed token for the user.
func (a *Auth) callback(w http.ResponseWriter, r *http.Request) {
	p := a.providers[r.PathValue("provider")]
	if p == nil {
		a.unknownProvider(w, r.PathValue("provider"))
		return
	}
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		writeError(w, http.StatusUnauthorized, "Sign-in refused by "+p.Name+": "+clip(e)+" "+clip(q.Get("error_description")))
		return
	}
	st, err := a.openState(r, p.Name, q.Get("state"))
	if err != nil {
		a.fail(w, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: "/auth/" + p.Name, MaxAge: -1})
	d, _, err := p.discover(r.Context())
	if err != nil {
		a.fail(w, err)
		return
	}
	if q.Get("code") == "" {
		writeError(w, http.StatusBadRequest, "The provider sent no code: start again at /auth/"+p.Name)
		return
	}
	idToken, err := p.exchange(r.Context(), d, q.Get("code"), st.Verifier, a.redirectURI(p))
	if err != nil {
		a.fail(w, err)
		return
	}
	sub, _, err := p.verifyIDToken(r.Context(), idToken, a.now)
	if err != nil {
		a.fail(w, a.refused(err, p.audience()))
		return
	}
	user, err := a.userIDOf(p, sub)
	if err != nil {
		a.fail(w, err)
		return
	}
	a.issue(w, r, a.id.UserDID(user))
}

// issue answers a finished sign-in with a venue-signed token.
func (a *Auth) issue(w http.ResponseWriter, r *http.Request, user string) {
	now := time.Now()
	tok, err := venueToken(a.id.Key, a.id.DID, user, now, a.opts.TokenTTL)
	if err != nil {
		a.fail(w, err)
		return
	}
	if err := a.e.RecordUser(r.Context(), user); err != nil {
		a.log.Warn("record user", "caller", user, "err", err)
	}
	a.log.Info("signed in", "caller", user)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"token": tok, "tokenType": "Bearer", "did": user,
		"expires": now.Add(a.opts.TokenTTL).UnixMilli()})
}

func (a *Auth) redirectURI(p *provider) string { return a.id.BaseURL + "/auth/" + p.Name + "/callback" }

func (a *Auth) unknownProvider(w http.ResponseWriter, name string) {
	writeError(w, http.StatusNotFound, "Unknown sign-in provider: "+clip(name)+": /login lists the configured ones")
}

func (a *Auth) fail(w http.ResponseWriter, err error) {
	status := map[string]int{venue.EINVALID: 400, venue.EUNAUTHORIZED: 401, venue.EUNAVAILABLE: 502}[venue.ErrorCode(err)]
	if status == 0 {
		a.log.Error("sign-in", "err", err)
		status = http.StatusInternalServerError
	}
	writeError(w, status, venue.ErrorMessage(err))
}

// seal signs a login state into a cookie value.
func (a *Auth) seal(st loginState) string {
	b, _ := json.Marshal(st)
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(a.mac(payload))
}

// openState checks the state cookie of a callback: signed by this venue,
// for this provider, unexpired, and holding the state the provider echoed.
func (a *Auth) openState(r *http.Request, provider, state string) (*loginState, error) {
	ck, err := r.Cookie(stateCookie)
	if err != nil {
		return nil, venue.Errorf(venue.EINVALID, "No sign-in in progress (the state cookie is missing): start at /auth/%s", provider)
	}
	payload, sig, _ := strings.Cut(ck.Value, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, a.mac(payload)) {
		return nil, venue.Errorf(venue.EINVALID, "The sign-in state cookie is not this venue's: start again at /auth/%s", provider)
	}
	var st loginState
	b, _ := base64.RawURLEncoding.DecodeString(payload)
	if json.Unmarshal(b, &st) != nil || st.Provider != provider || time.Now().Unix() > st.Expires {
		return nil, venue.Errorf(venue.EINVALID, "The sign-in has expired or was for another provider: start again at /auth/%s", provider)
	}
	if state == "" || !hmac.Equal([]byte(state), []byte(st.State)) {
		return nil, venue.Errorf(venue.EINVALID, "The provider's state does not match this sign-in: start again at /auth/%s", provider)
	}
	return &st, nil
}

func (a *Auth) mac(payload string) []byte {
	key := sha256.Sum256(append([]byte("venue oauth state\x00"), a.id.Key.Seed()...))
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(payload))
	return m.Sum(nil)
}

func random(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func wantsJSON(r *http.Request) bool {
	acc := r.Header.Get("Accept")
	return strings.Contains(acc, "application/json") && !strings.Contains(acc, "text/html")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
