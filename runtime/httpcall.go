package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
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

// HTTPResponse is what came back.
type HTTPResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	URL     string            `json:"url"` // after redirects
}

var (
	placeholder = regexp.MustCompile(`\{s/([A-Za-z0-9][A-Za-z0-9_.-]*)\}`)
	httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true}
)

// HTTP makes req for the job's caller: it resolves the secret references
// (registering every value with the job's masker, so that no record shows
// it), checks the URL against the venue's outbound policy and sends it.
// Returns EINVALID for a malformed request or an unresolvable reference,
// EFORBIDDEN for a destination the policy refuses.
func (env *Env) HTTP(ctx context.Context, req HTTPRequest) (*HTTPResponse, error) {
	hreq, secretNames, err := env.buildRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, err := env.e.http.Do(hreq, secretNames)
	if err != nil {
		return nil, env.maskErr(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, env.maskErr(err)
	}
	out := &HTTPResponse{Status: resp.StatusCode, Headers: map[string]string{}, Body: string(body), URL: resp.Request.URL.String()}
	for k, v := range resp.Header {
		out.Headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return out, nil
}

func (env *Env) buildRequest(ctx context.Context, req HTTPRequest) (*http.Request, []string, error) {
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = "GET"
		if len(req.Body) > 0 {
			method = "POST"
		}
	}
	if !httpMethods[method] {
		return nil, nil, venue.Errorf(venue.EINVALID, "Unsupported HTTP method: %s", req.Method)
	}
	u, err := env.resolveURL(ctx, req.URL, req.QueryParams)
	if err != nil {
		return nil, nil, err
	}
	body, ctype := requestBody(req.Body)
	if req.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond)
		context.AfterFunc(ctx, cancel)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, nil, venue.Errorf(venue.EINVALID, "Invalid request: %v", err)
	}
	if ctype != "" {
		hreq.Header.Set("Content-Type", ctype)
	}
	for k, v := range req.Headers {
		hreq.Header.Set(k, v)
	}
	names, err := env.secretHeaders(ctx, hreq.Header, req)
	return hreq, names, err
}

// resolveURL fills {s/NAME} placeholders and adds the query parameters.
func (env *Env) resolveURL(ctx context.Context, raw string, query map[string]string) (*url.URL, error) {
	var failed error
	filled := placeholder.ReplaceAllStringFunc(raw, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		v, err := env.Secret(ctx, name)
		if err != nil && failed == nil {
			failed = venue.Errorf(venue.EINVALID, "Could not resolve URL placeholder {s/%s}: %s", name, venue.ErrorMessage(err))
		}
		return v
	})
	if failed != nil {
		return nil, failed
	}
	u, err := url.Parse(filled)
	if err != nil || u.Host == "" && u.Scheme == "" {
		return nil, venue.Errorf(venue.EINVALID, "Invalid URL: %s", raw)
	}
	if len(query) > 0 {
		q := u.Query()
		for k, v := range query {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}

// secretHeaders sets the bearer and secret headers and returns their names,
// which must not follow a redirect to another host.
func (env *Env) secretHeaders(ctx context.Context, h http.Header, req HTTPRequest) ([]string, error) {
	var names []string
	if req.BearerSecret != "" {
		v, err := env.resolveRef(ctx, req.BearerSecret)
		if err != nil {
			return nil, venue.Errorf(venue.EINVALID, "Could not resolve bearerSecret reference: %s (%s)", req.BearerSecret, venue.ErrorMessage(err))
		}
		h.Set("Authorization", "Bearer "+v)
		names = append(names, "Authorization")
	}
	for header, ref := range req.SecretHeaders {
		v, err := env.resolveRef(ctx, ref)
		if err != nil {
			return nil, venue.Errorf(venue.EINVALID, "Could not resolve secretHeaders[%s] reference: %s (%s)", header, ref, venue.ErrorMessage(err))
		}
		h.Set(header, v)
		names = append(names, header)
	}
	return names, nil
}

func (env *Env) resolveRef(ctx context.Context, ref string) (string, error) {
	name, err := venue.ParseSecretRef(ref)
	if err != nil {
		return "", err
	}
	return env.Secret(ctx, name)
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

// maskErr masks resolved secrets out of an error's message (a URL with a
// placeholder filled in may appear in it).
func (env *Env) maskErr(err error) error {
	return venue.Errorf(venue.ErrorCode(err), "%s", env.j.mask.text(venue.ErrorMessage(err)))
}
