package wasm

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

// maskedSecret holds characters every encoding treats differently (a
// space, '/', '?', '&', '=', '+', HTML and JSON specials, non-ASCII) and
// starts with a marker no encoding but base64 or hex changes.
const (
	secretMarker  = "zq7"
	maskedSecret  = secretMarker + "k1é€ a/b?c&d=e+f<g>\"h"
	echoSecretRef = "s/ECHO_KEY"
)

// echoServer is a loopback server that tells back everything it got: the
// request line and headers in a JSON body, the credentials in response
// headers. Under /redirect/ it first redirects to /echo/landed with the
// path it was asked for in the query.
type echoServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func mustEchoServer(t *testing.T) *echoServer {
	s := &echoServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *echoServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Clone(r.Context()))
	s.mu.Unlock()
	if rest, ok := strings.CutPrefix(r.URL.Path, "/redirect/"); ok {
		http.Redirect(w, r, "/echo/landed?seen="+url.QueryEscape(rest), http.StatusFound)
		return
	}
	w.Header().Set("X-Echo-Authorization", r.Header.Get("Authorization"))
	w.Header().Set("X-Echo-Key", r.Header.Get("X-Key"))
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"uri": r.RequestURI, "path": r.URL.Path, "query": r.URL.Query(), "headers": r.Header})
}

func (s *echoServer) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen
}

// hostHex has the Go reactor make reqs as alice and returns its job and
// what the host answered it, which the guest hands back hex-encoded so
// that the engine's masking of the job's output cannot hide anything.
func (h *harness) hostHex(t *testing.T, reqs []map[string]any) (*venue.Job, []byte) {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"do": "hosthex", "reqs": reqs})
	j := h.run(t, h.alice, "v/test/wasm/goreactor", string(in))
	var out struct{ Hex string }
	if err := json.Unmarshal(j.Output, &out); err != nil {
		t.Fatalf("status %s, error %q, output %s", j.Status, j.Error, j.Output)
	}
	raw, _ := hex.DecodeString(out.Hex)
	return j, raw
}

// TestHost_HTTPAnswersAreMasked has an uploaded guest call an echoing
// server with a secret in every credential shape, and report what the host
// answered, hex-encoded so that the engine's masking of the job's output
// cannot hide it. The server must get the secret, correctly encoded for
// each place; the guest, the job record and the log must never see it.
func TestHost_HTTPAnswersAreMasked(t *testing.T) {
	srv := mustEchoServer(t)
	h := mustHarness(t, Config{}, runtime.Config{Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}}, "goreactor")
	if err := h.PutSecret(h.alice, "ECHO_KEY", maskedSecret); err != nil {
		t.Fatal(err)
	}
	reqs := []map[string]any{
		{"fn": "http.request", "url": srv.URL + "/echo/{s/ECHO_KEY}?q={s/ECHO_KEY}", "queryParams": map[string]string{"page": "2"},
			"bearerSecret": echoSecretRef, "secretHeaders": map[string]string{"X-Key": echoSecretRef}},
		{"fn": "http.request", "url": srv.URL + "/echo/plain?q={s/ECHO_KEY}"},
		{"fn": "http.request", "url": srv.URL + "/redirect/{s/ECHO_KEY}"},
		{"fn": "http.request", "url": "http:///nohost/{s/ECHO_KEY}"},
		{"fn": "http.request", "url": strings.Replace(srv.URL, "//", "//user:{s/ECHO_KEY}@", 1) + "/echo/basic"},
	}
	j, raw := h.hostHex(t, reqs)
	var a answers
	if err := json.Unmarshal(raw, &a); err != nil || len(a.Answers) != len(reqs) {
		t.Fatalf("answers %s: %v", raw, err)
	}
	t.Run("the server got the secret, encoded for each place", func(t *testing.T) {
		checkEchoRequests(t, srv.requests())
	})
	t.Run("the guest's answers hold no form of it", func(t *testing.T) {
		noSecret(t, "the guest's answers", string(raw))
		for i, ans := range a.Answers[:3] {
			if !ans.OK {
				t.Errorf("request %d failed: %s", i, ans.Error)
			}
		}
		var first runtime.HTTPResponse
		json.Unmarshal(a.Answers[0].Result, &first)
		if want := srv.URL + "/echo/{s/ECHO_KEY}?page=2&q={s/ECHO_KEY}"; first.URL != want {
			t.Errorf("url %q, want the placeholders restored: %q", first.URL, want)
		}
		if got := first.Headers["x-echo-authorization"]; got != "Bearer "+runtime.Hidden {
			t.Errorf("the echoed Authorization reaches the guest as %q", got)
		}
		if a.Answers[3].OK || a.Answers[3].Error != "URL has no host: http:///nohost/{s/ECHO_KEY}" {
			t.Errorf("a URL without a host: %+v", a.Answers[3])
		}
		var basic runtime.HTTPResponse
		json.Unmarshal(a.Answers[4].Result, &basic)
		if want := strings.Replace(srv.URL, "//", "//user:{s/ECHO_KEY}@", 1) + "/echo/basic"; basic.URL != want {
			t.Errorf("url %q, want %q", basic.URL, want)
		}
		// The Basic credential Go builds from the user info is a form no
		// marker survives.
		if basicAuth := base64.StdEncoding.EncodeToString([]byte("user:" + maskedSecret)); strings.Contains(string(raw), basicAuth) {
			t.Errorf("the guest got the Basic credential: %s", raw)
		}
	})
	t.Run("the job record and the log hold no form of it", func(t *testing.T) {
		rec, err := h.Job(h.alice, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rec)
		noSecret(t, "the job record", string(b))
		noSecret(t, "the log", h.logs.text())
	})
}

// checkEchoRequests checks what the echo server received: the secret, once
// decoded, exactly as stored, wherever it was placed.
func checkEchoRequests(t *testing.T, seen []*http.Request) {
	t.Helper()
	if len(seen) != 5 { // the redirect is followed; the URL without a host is never sent
		t.Fatalf("the server got %d requests, want 5", len(seen))
	}
	if user, pass, ok := seen[4].BasicAuth(); !ok || user != "user" || pass != maskedSecret {
		t.Errorf("user info: the server got %q %q %v", user, pass, ok)
	}
	first := seen[0]
	for what, got := range map[string]string{
		"path":          first.URL.Path,
		"query q":       first.URL.Query().Get("q"),
		"query page":    first.URL.Query().Get("page"),
		"Authorization": first.Header.Get("Authorization"),
		"X-Key":         first.Header.Get("X-Key"),
		"plain query":   seen[1].URL.Query().Get("q"),
		"redirected":    seen[2].URL.Path,
	} {
		want := map[string]string{"path": "/echo/" + maskedSecret, "query page": "2", "Authorization": "Bearer " + maskedSecret,
			"redirected": "/redirect/" + maskedSecret}[what]
		if want == "" {
			want = maskedSecret
		}
		if got != want {
			t.Errorf("%s: the server got %q, want %q", what, got, want)
		}
	}
}

// noSecret fails if text holds the secret in any form: the marker survives
// every encoding a URL, a header or JSON could give it.
func noSecret(t *testing.T, what, text string) {
	t.Helper()
	if i := strings.Index(text, secretMarker); i >= 0 {
		t.Errorf("%s holds the secret: …%s…", what, text[max(i-60, 0):min(i+60, len(text))])
	}
}

// TestHost_HTTPCompositeCredentialsAreMasked stores whole-header
// credentials in the shapes the spec documents (a Basic pair, a
// name=value token) and has the server quote only their secret parts, as
// an API's error message may: none of those parts may reach the guest.
func TestHost_HTTPCompositeCredentialsAreMasked(t *testing.T) {
	const key = secretMarker + "_live_KEY0123"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		dec, _ := base64.StdEncoding.DecodeString(cred)
		_, token, _ := strings.Cut(r.Header.Get("X-Api-Key"), "token=")
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"credential": cred, "decoded": string(dec), "token": token})
	}))
	t.Cleanup(srv.Close)
	h := mustHarness(t, Config{}, runtime.Config{Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}}, "goreactor")
	if err := h.PutSecret(h.alice, "BASIC", "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:"+key))); err != nil {
		t.Fatal(err)
	}
	if err := h.PutSecret(h.alice, "TOKEN", `Token token="`+key+`"`); err != nil {
		t.Fatal(err)
	}
	reqs := []map[string]any{{"fn": "http.request", "url": srv.URL + "/x",
		"secretHeaders": map[string]string{"Authorization": "s/BASIC", "X-Api-Key": "s/TOKEN"}}}
	_, raw := h.hostHex(t, reqs)
	if !strings.Contains(string(raw), "401") {
		t.Fatalf("the request did not reach the server: %s", raw)
	}
	noSecret(t, "the guest's answers", string(raw))
	if b64 := base64.StdEncoding.EncodeToString([]byte("alice:" + key)); strings.Contains(string(raw), b64) {
		t.Errorf("the guest got the Basic credential: %s", raw)
	}
}

// TestHost_UploadedCodeUsesOnlyNamedSecrets: uploaded code may be anyone's,
// so it resolves and stores only the secrets its job's input names as
// s/NAME (an audit's module sent its caller's API key to its author).
func TestHost_UploadedCodeUsesOnlyNamedSecrets(t *testing.T) {
	srv := mustEchoServer(t)
	h := mustHarness(t, Config{}, runtime.Config{Outbound: outbound.Policy{AllowHosts: []string{"127.0.0.1"}}}, "goreactor")
	for _, name := range []string{"ECHO_KEY", "NAMED_KEY"} {
		if err := h.PutSecret(h.alice, name, maskedSecret); err != nil {
			t.Fatal(err)
		}
	}
	const refused = "This operation runs code a user uploaded, which may use only the secrets its input names: to let it use your secret "
	// A bare name is a reference the host accepts, but not the input
	// naming the secret: as good as a reference the code made up.
	_, raw := h.hostHex(t, []map[string]any{
		{"fn": "http.request", "url": srv.URL + "/echo/unnamed", "bearerSecret": "ECHO_KEY"},
		{"fn": "secret.set", "name": "PLANTED", "value": "planted-value"},
		{"fn": "http.request", "url": srv.URL + "/echo/named", "bearerSecret": "/s/NAMED_KEY"},
	})
	var a answers
	if err := json.Unmarshal(raw, &a); err != nil || len(a.Answers) != 3 {
		t.Fatalf("answers %s: %v", raw, err)
	}
	for i, want := range []string{refused + `ECHO_KEY, give "s/ECHO_KEY" in the input`, refused + `PLANTED, give "s/PLANTED" in the input`} {
		if a.Answers[i].OK || a.Answers[i].Error != want {
			t.Errorf("answer %d: %+v\nwant the error %q", i, a.Answers[i], want)
		}
	}
	if !a.Answers[2].OK {
		t.Errorf("a secret the input names: %+v", a.Answers[2])
	}
	if reqs := srv.requests(); len(reqs) != 1 || reqs[0].URL.Path != "/echo/named" {
		t.Errorf("the server got %d requests, want only the one naming its secret", len(reqs))
	}
	if names, err := h.SecretNames(h.alice); err != nil || slices.Contains(names, "PLANTED") {
		t.Errorf("secrets %v (%v): the unnamed one was stored", names, err)
	}
}
