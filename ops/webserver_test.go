package ops

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// webServer is the loopback server the http cases call. It answers every
// request with the JSON {"ok":true} and records what it received.
type webServer struct {
	*httptest.Server
	mu  sync.Mutex
	got []string // each request as JSON {method, uri, headers, body}
}

// sentRequest is a request as the server received it; headers leave out
// those Go's client adds to every request.
type sentRequest struct {
	Method  string            `json:"method"`
	URI     string            `json:"uri"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

var clientHeaders = map[string]bool{"User-Agent": true, "Accept-Encoding": true, "Content-Length": true}

func mustWebServer(tb testing.TB) *webServer {
	tb.Helper()
	w := &webServer{}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	tb.Cleanup(w.Close)
	return w
}

func (w *webServer) serve(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/fill" {
		fill(rw, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	sent := sentRequest{Method: r.Method, URI: r.RequestURI, Headers: map[string]string{}, Body: string(body)}
	for k, v := range r.Header {
		if !clientHeaders[k] {
			sent.Headers[k] = strings.Join(v, ", ")
		}
	}
	b, _ := json.Marshal(sent)
	w.mu.Lock()
	w.got = append(w.got, string(b))
	w.mu.Unlock()
	rw.Header()["Date"] = nil // so that the response, and the job's output, is the same every time
	rw.Header().Set("Content-Type", "application/json")
	io.WriteString(rw, `{"ok":true}`)
}

// fill answers /fill?byte=B&n=N[&gzip=1] with N bytes B (a number), gzipped
// if asked: the bodies the size limit is tried on.
func fill(rw http.ResponseWriter, r *http.Request) {
	b, _ := strconv.Atoi(r.URL.Query().Get("byte"))
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	body := bytes.Repeat([]byte{byte(b)}, n)
	if r.URL.Query().Get("gzip") != "" {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body)
		zw.Close()
		body = z.Bytes()
		rw.Header().Set("Content-Encoding", "gzip")
	}
	rw.Write(body)
}

// fill replaces {web} in s with the server's URL.
func (w *webServer) fill(s string) string { return strings.ReplaceAll(s, "{web}", w.URL) }

func (w *webServer) reset() {
	w.mu.Lock()
	w.got = nil
	w.mu.Unlock()
}

// check compares the requests received since the last reset with want:
// one request (as JSON, see sentRequest), noRequest for none, or "" for
// no check.
func (w *webServer) check(t *testing.T, want string) {
	t.Helper()
	w.mu.Lock()
	got := w.got
	w.mu.Unlock()
	switch {
	case want == "":
	case want == noRequest && len(got) > 0:
		t.Errorf("the server received %s, want no request", got)
	case want != noRequest && (len(got) != 1 || !jsonEqual(got[0], want)):
		t.Errorf("the server received %s\nwant [%s]", got, want)
	}
}
