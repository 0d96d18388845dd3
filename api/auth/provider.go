package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	venue "github.com/gridvenue/venue"
)

// Provider is an OAuth 2 / OpenID Connect provider people sign in with.
type Provider struct {
	Name         string   // the {provider} of /auth/{provider}: lowercase letters, digits and '-'
	Issuer       string   // issuer URL; its /.well-known/openid-configuration names the endpoints
	ClientID     string   // the venue's client id at the provider; also the audience of its tokens
	ClientSecret string   // optional: PKCE alone suffices for a public client
	Scopes       []string // default openid, email, profile
}

var providerName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

func (p Provider) check() error {
	u, err := url.Parse(p.Issuer)
	switch {
	case !providerName.MatchString(p.Name):
		return venue.Errorf(venue.EINVALID, "OAuth provider name %q: use lowercase letters, digits and '-'", clip(p.Name))
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return venue.Errorf(venue.EINVALID, "OAuth provider %s: issuer %q must be an http(s) URL", p.Name, clip(p.Issuer))
	case p.ClientID == "":
		return venue.Errorf(venue.EINVALID, "OAuth provider %s: clientId is required", p.Name)
	}
	return nil
}

// provider is a configured provider with what was learnt from it.
type provider struct {
	Provider
	client *http.Client
	bg     context.Context // lives as long as the door: key refreshes stop with it

	mu   sync.Mutex
	meta *discovery
	keys keyfunc.Keyfunc
}

// discovery is the part of an OpenID configuration the venue uses.
type discovery struct {
	Issuer        string `json:"issuer"`
	Authorization string `json:"authorization_endpoint"`
	Token         string `json:"token_endpoint"`
	JWKS          string `json:"jwks_uri"`
}

// discover fetches the provider's configuration and key set once; a failure
// is retried on the next call.
func (p *provider) discover(ctx context.Context) (*discovery, keyfunc.Keyfunc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.meta != nil {
		return p.meta, p.keys, nil
	}
	var d discovery
	if err := p.getJSON(ctx, strings.TrimRight(p.Issuer, "/")+"/.well-known/openid-configuration", &d); err != nil {
		return nil, nil, err
	}
	if d.Authorization == "" || d.Token == "" || d.JWKS == "" {
		return nil, nil, venue.Errorf(venue.EUNAVAILABLE, "OAuth provider %s: its configuration lacks authorization, token or JWKS endpoints", p.Name)
	}
	k, err := keyfunc.NewDefaultCtx(p.bg, []string{d.JWKS})
	if err != nil {
		return nil, nil, venue.Errorf(venue.EUNAVAILABLE, "OAuth provider %s: cannot load its keys: %v", p.Name, err)
	}
	p.meta, p.keys = &d, k
	return p.meta, p.keys, nil
}

func (p *provider) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return venue.Errorf(venue.EUNAVAILABLE, "OAuth provider %s is unreachable: %v", p.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return venue.Errorf(venue.EUNAVAILABLE, "OAuth provider %s answered %s at %s", p.Name, resp.Status, u)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// audience says which aud this provider's tokens need: the client id the
// venue is registered with there, not the venue's DID.
func (p *provider) audience() string {
	return fmt.Sprintf("an ID token of OAuth provider %s must have aud %s, the clientId this venue is registered with there", p.Name, p.ClientID)
}

// verifyIDToken checks an RS256 token of this provider and returns its
// subject.
func (p *provider) verifyIDToken(ctx context.Context, tok string, now func() time.Time) (string, time.Time, error) {
	d, keys, err := p.discover(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	iss := d.Issuer
	if iss == "" {
		iss = p.Issuer
	}
	c := &jwt.RegisteredClaims{}
	_, err = jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(leeway),
		jwt.WithIssuer(iss), jwt.WithAudience(p.ClientID), jwt.WithTimeFunc(now)).ParseWithClaims(tok, c, keys.KeyfuncCtx(ctx))
	if err != nil {
		return "", time.Time{}, err
	}
	if c.Subject == "" {
		return "", time.Time{}, fmt.Errorf("token has no sub")
	}
	return c.Subject, c.ExpiresAt.Time, nil
}

// exchange trades an authorization code (with its PKCE verifier) for the
// provider's ID token.
func (p *provider) exchange(ctx context.Context, d *discovery, code, verifier, redirect string) (string, error) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {p.ClientID}, "code_verifier": {verifier}}
	if p.ClientSecret != "" {
		form.Set("client_secret", p.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Token, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return "", venue.Errorf(venue.EUNAVAILABLE, "OAuth provider %s is unreachable: %v", p.Name, err)
	}
	defer resp.Body.Close()
	var body struct {
		IDToken string `json:"id_token"`
		Error   string `json:"error"`
		Desc    string `json:"error_description"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body)
	if resp.StatusCode != http.StatusOK || body.IDToken == "" {
		return "", venue.Errorf(venue.EUNAUTHORIZED, "OAuth provider %s refused the sign-in (%s): %s %s; start again at /auth/%s",
			p.Name, resp.Status, clip(body.Error), clip(body.Desc), p.Name)
	}
	return body.IDToken, nil
}
