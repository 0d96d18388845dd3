package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gridvenue/venue/runtime"
)

// exchange records what a bridged server answered over HTTP during one
// connect or call. The SDK's client reports a refused request only by its
// status text ("Bad Request") and drops the body, which holds the server's
// reason, and it reports an answer it cannot read in words of its own
// decoder; the transport sees both, so it notes them here for the bridge's
// retry decision and its messages.
type exchange struct {
	mu     sync.Mutex
	status int    // the status of the last request refused with 4xx or 5xx; 0 if none
	reason string // the server's words for that refusal, or its status text
	notMCP string // what was wrong with a 2xx answer that is not MCP JSON-RPC; "" if none
	secret string // the bearer token sent, hidden in what the server's words give back
}

type exchangeKey struct{}

// withExchange returns ctx carrying a new exchange, which the transport
// fills in for every request made with that context; secret is the token
// those requests carry.
func withExchange(ctx context.Context, secret string) (context.Context, *exchange) {
	x := &exchange{secret: secret}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

func exchangeOf(ctx context.Context) *exchange {
	x, _ := ctx.Value(exchangeKey{}).(*exchange)
	return x
}

// refusal returns the status and reason of the last refused request.
func (x *exchange) refusal() (int, string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.status, x.reason
}

// garbage returns what was wrong with an answer that is not MCP JSON-RPC.
func (x *exchange) garbage() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.notMCP
}

// maxReason bounds how much of a refusal's body is read for its reason.
const maxReason = 4096

// observe notes what resp says about the exchange, leaving its body to be
// read again from the start.
func (x *exchange) observe(resp *http.Response) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode >= 400:
		head := peek(resp, maxReason)
		x.note(func() { x.status, x.reason = resp.StatusCode, reasonOf(resp.StatusCode, ct, head, x.secret) })
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		// a notification's answer: no body
	case ct == "application/json":
		// The SDK reads a JSON answer whole anyway; reading it here first
		// costs one copy and tells garbage from a broken connection.
		body := peek(resp, -1)
		if len(bytes.TrimSpace(body)) > 0 && !jsonRPC(body) { // some servers answer a notification with 200 and no body
			x.note(func() { x.notMCP = "its JSON answer is not a JSON-RPC 2.0 message" })
		}
	case ct != "" && ct != "text/event-stream" && resp.Request != nil && resp.Request.Method == http.MethodPost:
		x.note(func() { x.notMCP = "it answered with Content-Type " + clippedHiding(ct, 80, x.secret) })
	}
}

func (x *exchange) note(set func()) {
	x.mu.Lock()
	set()
	x.mu.Unlock()
}

// peek reads up to max bytes of resp's body (all of it for max < 0) and
// puts them back in front of the rest. A read error is left for the SDK to
// meet when it reads the same place.
func peek(resp *http.Response, max int64) []byte {
	r := io.Reader(resp.Body)
	if max >= 0 {
		r = io.LimitReader(r, max)
	}
	head, err := io.ReadAll(r)
	rest := io.Reader(resp.Body)
	if err != nil {
		rest = errReader{err}
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), rest), resp.Body}
	return head
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// jsonRPC reports whether body is a JSON-RPC 2.0 message or a batch of them.
func jsonRPC(body []byte) bool {
	body = bytes.TrimSpace(body)
	var one struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if len(body) > 0 && body[0] == '[' {
		var batch []struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if json.Unmarshal(body, &batch) != nil || len(batch) == 0 {
			return false
		}
		one = batch[0]
	} else if json.Unmarshal(body, &one) != nil {
		return false
	}
	return one.JSONRPC == "2.0"
}

// reasonOf is a refusal in the server's words: the message of a JSON-RPC
// error or of an {"error": "..."} body, the first line of a plain-text
// body, else the status text (an HTML page says nothing useful in one line).
func reasonOf(status int, contentType string, body []byte, secret string) string {
	var msg string
	switch contentType {
	case "application/json":
		var rpc struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(body, &rpc) == nil {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(rpc.Error, &msg) != nil && json.Unmarshal(rpc.Error, &e) == nil {
				msg = e.Message
			}
		}
	case "text/plain":
		msg = string(body)
	}
	msg = strings.TrimSpace(msg)
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return clippedHiding(strings.ToValidUTF8(msg, "?"), 200, secret)
}

// clippedHiding is clipped for a server's words, which may repeat the
// token sent to it: the token is hidden first, and a cut that leaves the
// start of it at the end drops that start. The job's masker hides the
// token later, but only whole: a cut piece of it it would not know.
func clippedHiding(s string, n int, secret string) string {
	if secret == "" {
		return clipped(s, n)
	}
	s = strings.ReplaceAll(s, secret, runtime.Hidden)
	c := clipped(s, n)
	if c == s {
		return c
	}
	cut := strings.TrimSuffix(c, "…")
	for k := min(len(secret)-1, len(cut)); k > 0; k-- {
		if strings.HasSuffix(cut, secret[:k]) {
			return cut[:len(cut)-k] + "…"
		}
	}
	return c
}

// clipped shortens s to at most n bytes, at a rune boundary.
func clipped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
