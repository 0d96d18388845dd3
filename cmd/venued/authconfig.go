package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/api/auth"
	"github.com/gridvenue/venue/runtime"
)

// AuthConfig is the identity part of the configuration.
type AuthConfig struct {
	// Anonymous is what callers without a token may do in the shared
	// anonymous namespace: "none" (every API request needs a token),
	// "read", "invoke" (read and invoke) or "write" (everything). Default:
	// write when both the listener and the public URL are loopback, invoke
	// otherwise (a loopback listener behind a reverse proxy is public).
	Anonymous string   `json:"anonymous"`
	Admins    []string `json:"admins"`   // DIDs holding venue-wide abilities such as mcp/manage
	TokenTTL  string   `json:"tokenTTL"` // lifetime of tokens issued at login; default 24h
	// MaxTokenTTL is the longest lifetime (exp − iat, or exp − now) of a
	// token a caller issues itself; default 24h.
	MaxTokenTTL string                 `json:"maxTokenTTL"`
	OAuth       map[string]OAuthConfig `json:"oauth"` // sign-in providers by name, as in /auth/{name}
}

// OAuthConfig is one OpenID Connect provider.
type OAuthConfig struct {
	Issuer       string   `json:"issuer"`
	ClientID     string   `json:"clientId"`
	ClientSecret string   `json:"clientSecret"`
	Scopes       []string `json:"scopes"`
}

// anonymousAbilities are the abilities each anonymous level grants.
var anonymousAbilities = map[string][]string{
	"none":   nil,
	"read":   {venue.AbilityRead},
	"invoke": {venue.AbilityRead, venue.AbilityInvoke},
	"write":  {"*"},
}

// anonymousLevel is the configured level, or the default for where the
// venue can be reached.
func (c Config) anonymousLevel() string {
	level, _ := c.anonymousPolicy()
	return level
}

// anonymousPolicy is the level in effect and why, for the startup log.
// Only a venue that is loopback on both ends, its listener and the public
// URL people reach it at, lets anonymous callers write: a loopback listener
// behind a reverse proxy serves whoever the proxy serves.
func (c Config) anonymousPolicy() (level, why string) {
	switch {
	case c.Auth.Anonymous != "":
		return c.Auth.Anonymous, "set by auth.anonymous or VENUE_ANONYMOUS"
	case !loopback(c.Listen):
		return "invoke", "the listener " + c.Listen + " is not loopback; set auth.anonymous to change it"
	case c.URL != "" && !loopbackURL(c.URL):
		return "invoke", "the public url " + c.URL + " is not loopback; set auth.anonymous to change it"
	}
	return "write", "the listener and the public url are loopback"
}

func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = listen
	}
	return loopbackHost(host)
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && loopbackHost(u.Hostname())
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c Config) accessPolicy() runtime.AccessPolicy {
	return runtime.AccessPolicy{Anonymous: anonymousAbilities[c.anonymousLevel()], Admins: c.Auth.Admins}
}

func (c Config) authOptions() auth.Options {
	level, why := c.anonymousPolicy()
	opts := auth.Options{RequireToken: level == "none", TokenTTL: duration(c.Auth.TokenTTL),
		MaxTokenTTL: duration(c.Auth.MaxTokenTTL), Anonymous: level, AnonymousWhy: why}
	names := make([]string, 0, len(c.Auth.OAuth))
	for name := range c.Auth.OAuth {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := c.Auth.OAuth[name]
		opts.Providers = append(opts.Providers, auth.Provider{Name: name, Issuer: p.Issuer, ClientID: p.ClientID,
			ClientSecret: p.ClientSecret, Scopes: p.Scopes})
	}
	return opts
}

// duration is a validated duration setting; "" is 0, the default.
func duration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

func (a AuthConfig) validate() error {
	var errs []error
	if _, ok := anonymousAbilities[a.Anonymous]; !ok && a.Anonymous != "" {
		errs = append(errs, fmt.Errorf("auth.anonymous %q: want none, read, invoke or write", a.Anonymous))
	}
	for _, kv := range [][2]string{{"auth.tokenTTL", a.TokenTTL}, {"auth.maxTokenTTL", a.MaxTokenTTL}} {
		if d, err := time.ParseDuration(kv[1]); kv[1] != "" && (err != nil || d <= 0) {
			errs = append(errs, fmt.Errorf("%s %q: want a duration such as 24h", kv[0], kv[1]))
		}
	}
	for _, d := range a.Admins {
		if !strings.HasPrefix(d, "did:") {
			errs = append(errs, fmt.Errorf("auth.admins: %q is not a DID", d))
		}
	}
	return errors.Join(errs...)
}
