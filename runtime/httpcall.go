package runtime

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
)

// HTTPRequest is an outbound request an operation asks the venue to make.
// Credentials are references to the caller's secrets, resolved here.
type HTTPRequest struct {
	Method        string            `json:"method,omitempty"`        // default GET, or POST with a body
	URL           string            `json:"url"`                     // may hold {s/NAME} placeholders
	Headers       map[string]string `json:"headers,omitempty"`       // literal headers
	QueryParams   map[string]string `json:"queryParams,omitempty"`   // added to the URL's query
	Body          json.RawMessage   `json:"body,omitempty"`          // a JSON string is sent as text; other JSON as JSON
	BearerSecret  string            `json:"bearerSecret,omitempty"`  // s/NAME: Authorization: Bearer <value>
	SecretHeaders map[string]string `json:"secretHeaders,omitempty"` // header → s/NAME: the value is the whole header
	TimeoutMs     int               `json:"timeoutMs,omitempty"`     // at most the venue's own timeout
}

// HTTPResponse is what came back. Its JSON form carries a body that is
// not text in base64 (AppendJSON).
type HTTPResponse struct {
	Status  int
	Headers map[string]string // names in lower case, repeated values joined with ", "
	Body    string            // as received, up to Config.Outbound.MaxResponse bytes
	URL     string            // after redirects
}

// maxTimeoutMs bounds timeoutMs (a day, far beyond the venue's own
// timeout, which bounds every request anyway), as the http operations'
// input schema does: a longer one could overflow a time.Duration into an
// immediate deadline.
const maxTimeoutMs = 24 * 60 * 60 * 1000

var httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true}

// HTTP makes req for the job's caller: it resolves the secret references
// (registering every value with the job's masker), checks the URL against
// the venue's outbound policy and sends it. What comes back passes through
// the masker, since it goes to the guest: a server may echo a credential,
// and the final URL would hold every filled-in placeholder, so the URL
// comes back with its placeholders restored.
// Returns EINVALID for a malformed request or an unresolvable reference,
// EFORBIDDEN for a destination the policy refuses.
func (env *Env) HTTP(ctx context.Context, req HTTPRequest) (*HTTPResponse, error) {
	hreq, fills, secretNames, err := env.buildRequest(ctx, req)
	if err != nil {
		return nil, env.maskErr(err, fills)
	}
	resp, err := env.e.http.Do(hreq, secretNames)
	if err != nil {
		return nil, env.maskErr(err, fills)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, env.maskErr(err, fills)
	}
	return env.answer(resp, body, fills), nil
}

// answer is the response as the guest may see it: masked throughout, the
// final URL with its placeholders back.
func (env *Env) answer(resp *http.Response, body []byte, fills []fill) *HTTPResponse {
	m := env.j.mask
	out := &HTTPResponse{Status: resp.StatusCode, Headers: make(map[string]string, len(resp.Header)),
		Body: m.text(string(body)), URL: utf8Text(m.text(restore(resp.Request.URL.String(), fills)))}
	for k, v := range resp.Header {
		out.Headers[utf8Text(m.lowerText(k))] = utf8Text(m.text(strings.Join(v, ", ")))
	}
	return out
}

// utf8Text makes s UTF-8, each run of other bytes one U+FFFD: as a JSON
// string says it, in three bytes rather than six for every byte.
func utf8Text(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func (env *Env) buildRequest(ctx context.Context, req HTTPRequest) (*http.Request, []fill, []string, error) {
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
		if len(req.Body) > 0 {
			method = "POST"
		}
	}
	if !httpMethods[method] {
		return nil, nil, nil, venue.Errorf(venue.EINVALID, "Unsupported HTTP method: %s", req.Method)
	}
	if err := checkHeaders(req); err != nil {
		return nil, nil, nil, err
	}
	if err := refuseLiteralCredentials(req); err != nil {
		return nil, nil, nil, err
	}
	u, fills, err := env.resolveURL(ctx, req.URL, req.QueryParams)
	if err != nil {
		return nil, nil, nil, err
	}
	env.maskUserInfo(u, fills)
	body, ctype := requestBody(req.Body)
	if ms := min(req.TimeoutMs, maxTimeoutMs); ms > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
		context.AfterFunc(ctx, cancel)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fills, nil, venue.Errorf(venue.EINVALID, "Invalid request: %v", err)
	}
	if ctype != "" {
		hreq.Header.Set("Content-Type", ctype)
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	names, err := env.secretHeaders(ctx, hreq.Header, req)
	return hreq, fills, names, err
}

// checkHeaders refuses header names that are no HTTP token, headers the
// venue sets itself, and literal values holding control characters, which
// net/http would refuse only when sending, as a failure of the venue's. A
// secret's value is checked where it is resolved, without quoting it.
func checkHeaders(req HTTPRequest) error {
	for k, v := range req.Headers {
		if !validHeaderName(k) {
			return venue.Errorf(venue.EINVALID, "Header name %q is not an HTTP header name: use letters, digits and !#$%%&'*+-.^_`|~ only", clipRef(k))
		}
		if err := refuseVenueHeader("headers", k); err != nil {
			return err
		}
		if !validHeaderValue(v) {
			return venue.Errorf(venue.EINVALID, "The value of header %s holds a control character (a line break?): header values are one line of text", k)
		}
	}
	for k := range req.SecretHeaders {
		if !validHeaderName(k) {
			return venue.Errorf(venue.EINVALID, "Header name %q in secretHeaders is not an HTTP header name: use letters, digits and !#$%%&'*+-.^_`|~ only", clipRef(k))
		}
		if err := refuseVenueHeader("secretHeaders", k); err != nil {
			return err
		}
	}
	return nil
}

// venueHeaders are the headers net/http writes from the request itself,
// dropping any value given for them, with what they are made from. Host
// is not sent as given for a further reason: the outbound policy checks
// the URL's host, and a virtual host of a server the policy allows may be
// one it would refuse.
var venueHeaders = map[string]string{
	"Host":              "the URL's host",
	"Content-Length":    "the body",
	"Transfer-Encoding": "the body",
	"Trailer":           "the body",
}

// refuseVenueHeader refuses a header of venueHeaders given in field: it
// would be recorded in the job's input and silently not sent.
func refuseVenueHeader(field, k string) error {
	name := http.CanonicalHeaderKey(k)
	if from, ok := venueHeaders[name]; ok {
		return venue.Errorf(venue.EINVALID, "The header %s in %s is set by the venue from %s: leave it out", name, field, from)
	}
	return nil
}

// validHeaderName reports whether k is an RFC 9110 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v has no control character but tab.
func validHeaderValue(v string) bool {
	for _, c := range []byte(v) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// credentialHeaders carry credentials by their nature. Third-party
// credentials reach outbound calls only through secret references, so a
// literal value in one is refused (the catalog's http operations also mark
// these names secret, so the refused value stays out of the job's record).
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// refuseLiteralCredentials refuses a literal header of credentialHeaders,
// unless a secret reference overrides it.
func refuseLiteralCredentials(req HTTPRequest) error {
	for k := range req.Headers {
		i := slices.IndexFunc(credentialHeaders, func(c string) bool { return strings.EqualFold(c, k) })
		if i < 0 || (req.BearerSecret != "" && i == 0) {
			continue
		}
		overridden := false
		for s := range req.SecretHeaders {
			overridden = overridden || strings.EqualFold(s, k)
		}
		if !overridden {
			return venue.Errorf(venue.EINVALID, "The header %s carries a credential, which the venue sends only from a secret: store it (PUT /api/v1/secrets/NAME) and give secretHeaders {%q: \"s/NAME\"}, or bearerSecret \"s/NAME\" for a bearer token", credentialHeaders[i], credentialHeaders[i])
		}
	}
	return nil
}

// redactUserInfo returns raw with the at bytes of user info that begin at
// start replaced by "...": an error must not repeat a literal password.
func redactUserInfo(raw string, start, at int) string {
	return raw[:start] + "..." + raw[start+at:]
}

// fill is a URL placeholder filled in: the secret's name and the text put
// in the placeholder's place.
type fill struct{ name, text string }

// resolveURL fills {s/NAME} placeholders, each value escaped for the part
// of the URL it stands in, and adds the query parameters.
func (env *Env) resolveURL(ctx context.Context, raw string, query map[string]string) (*url.URL, []fill, error) {
	var b strings.Builder
	var fills []fill
	last := 0
	scheme := strings.Index(raw, "://")
	if scheme >= 0 {
		authority := raw[scheme+3:]
		authority = authority[:authorityLen(authority)]
		if at := strings.LastIndexByte(authority, '@'); at >= 0 && literalUserInfo(authority[:at]) {
			return nil, nil, venue.Errorf(venue.EINVALID, "URL %s carries a user name or password, which the venue sends only from a secret: write the user info as {s/NAME} placeholders (https://{s/USER}:{s/PASS}@host/...) or give the credential in secretHeaders", clipRef(redactUserInfo(raw, scheme+3, at)))
		}
	}
	for _, m := range placeholders(raw) {
		if scheme < 0 || m[0] < scheme {
			// The scheme is checked and quoted in errors, which would
			// quote a piece of the secret.
			return nil, nil, venue.Errorf(venue.EINVALID, "URL %s must begin with its scheme written out (https:// or http://): a {s/NAME} placeholder may stand only after it", clipRef(raw))
		}
		name := raw[m[0]+len("{s/") : m[1]-1]
		v, err := env.Secret(ctx, name)
		if venue.ErrorCode(err) == venue.EFORBIDDEN {
			return nil, nil, err
		} else if err != nil {
			return nil, nil, venue.Errorf(venue.EINVALID, "Could not resolve URL placeholder {s/%s}: %s", name, venue.ErrorMessage(err))
		}
		f := fill{name: name, text: escapeURL(urlPartAt(raw[:m[0]]), v)}
		fills = append(fills, f)
		b.WriteString(raw[last:m[0]])
		b.WriteString(f.text)
		last = m[1]
	}
	b.WriteString(raw[last:])
	u, err := url.Parse(b.String())
	if err != nil || u.Host == "" && u.Scheme == "" {
		return nil, nil, venue.Errorf(venue.EINVALID, "Invalid URL: %s", raw)
	}
	if len(query) > 0 {
		q := u.Query()
		for k, v := range query {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	return u, fills, nil
}

// maskUserInfo registers the Basic credential Go makes of user info that
// holds a filled-in placeholder: a form of the value the masker could not
// derive from it, which a server may echo.
func (env *Env) maskUserInfo(u *url.URL, fills []fill) {
	if u.User == nil || len(fills) == 0 {
		return
	}
	pass, _ := u.User.Password()
	env.j.mask.add(base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass)))
}

// urlPart is where in a URL a placeholder stands.
type urlPart int

const (
	partPath urlPart = iota
	partAuthority
	partQuery
	partFragment
)

// urlPartAt tells the part of a URL that follows prefix.
func urlPartAt(prefix string) urlPart {
	switch {
	case strings.Contains(prefix, "#"):
		return partFragment
	case strings.Contains(prefix, "?"):
		return partQuery
	}
	if _, rest, ok := strings.Cut(prefix, "://"); ok && !strings.Contains(rest, "/") {
		return partAuthority
	}
	return partPath
}

// escapeURL escapes v to stand in part of a URL as one piece: a query value
// cannot end the value early with '&', a path segment cannot add segments
// with '/', user info cannot end early with '@'. Every escape used here is
// among the forms the masker knows (secretForms).
func escapeURL(part urlPart, v string) string {
	switch part {
	case partQuery:
		return url.QueryEscape(v)
	case partAuthority:
		return url.User(v).String()
	}
	return url.PathEscape(v)
}

// restore puts the placeholders back into a URL the request was sent to.
func restore(u string, fills []fill) string {
	slices.SortFunc(fills, func(a, b fill) int { return len(b.text) - len(a.text) })
	for _, f := range fills {
		u = strings.ReplaceAll(u, f.text, "{s/"+f.name+"}")
	}
	return u
}

// secretHeaders sets the bearer and secret headers and returns their names,
// which must not follow a redirect to another host.
func (env *Env) secretHeaders(ctx context.Context, h http.Header, req HTTPRequest) ([]string, error) {
	var names []string
	if req.BearerSecret != "" {
		v, err := env.credential(ctx, "bearerSecret", req.BearerSecret)
		if err != nil {
			return nil, err
		}
		if !validHeaderValue(v) {
			return nil, venue.Errorf(venue.EINVALID, "The secret %s for bearerSecret holds a control character (a line break?): a header value is one line of text", req.BearerSecret)
		}
		h.Set("Authorization", "Bearer "+v)
		names = append(names, "Authorization")
	}
	for header, ref := range req.SecretHeaders {
		v, err := env.credential(ctx, "secretHeaders["+header+"]", ref)
		if err != nil {
			return nil, err
		}
		if !validHeaderValue(v) {
			return nil, venue.Errorf(venue.EINVALID, "The secret %s for header %s holds a control character (a line break?): a header value is one line of text", ref, header)
		}
		h.Set(header, v)
		names = append(names, header)
		for _, part := range credentialParts(v) {
			env.j.mask.add(part)
		}
	}
	return names, nil
}

// credentialParts lists the pieces of a whole-header credential a server
// may quote on their own (an API's error message naming the key it
// refused): what follows an auth scheme, for Basic the decoded user:pass
// and the password, and the value of each name=value pair. The masker
// ignores pieces too short to mask.
func credentialParts(v string) []string {
	var parts []string
	rest := v
	if scheme, after, ok := strings.Cut(v, " "); ok {
		rest = strings.TrimSpace(after)
		parts = append(parts, rest)
		if strings.EqualFold(scheme, "Basic") {
			if dec, err := base64.StdEncoding.DecodeString(rest); err == nil {
				parts = append(parts, string(dec))
				if _, pass, ok := strings.Cut(string(dec), ":"); ok {
					parts = append(parts, pass)
				}
			}
		}
	}
	for _, kv := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		if _, val, ok := strings.Cut(kv, "="); ok {
			parts = append(parts, strings.Trim(val, `"`))
		}
	}
	return parts
}

// credential resolves the secret reference given in field. The error
// repeats the reference only when it is written as one (s/NAME): anything
// else may be the secret itself, passed by mistake where its name belongs.
func (env *Env) credential(ctx context.Context, field, ref string) (string, error) {
	name, err := venue.ParseSecretRef(ref)
	if err == nil {
		var v string
		if v, err = env.Secret(ctx, name); err == nil || venue.ErrorCode(err) == venue.EFORBIDDEN {
			return v, err
		}
	}
	if name != "" && (strings.HasPrefix(ref, "s/") || strings.HasPrefix(ref, "/s/")) {
		return "", venue.Errorf(venue.EINVALID, "Could not resolve %s reference: %s (%s)", field, ref, venue.ErrorMessage(err))
	}
	return "", venue.Errorf(venue.EINVALID, "Could not resolve %s reference: give s/NAME, the name of one of your stored secrets "+
		"(PUT /api/v1/secrets/{name}), never the secret's value; what was given is not repeated here in case it is one", field)
}

// requestBody sends a JSON string as text and any other JSON as JSON.
func requestBody(b json.RawMessage) (io.Reader, string) {
	if len(bytes.TrimSpace(b)) == 0 || string(b) == "null" {
		return nil, ""
	}
	var text string
	if json.Unmarshal(b, &text) == nil {
		return strings.NewReader(text), "text/plain; charset=utf-8"
	}
	return bytes.NewReader(b), "application/json"
}

// maskErr masks resolved secrets out of an error's message: a URL quoted
// in it gets its placeholders back, and any other trace of a value is
// hidden.
func (env *Env) maskErr(err error, fills []fill) error {
	return venue.Errorf(venue.ErrorCode(err), "%s", env.j.mask.text(restore(venue.ErrorMessage(err), fills)))
}
