package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
)

// Guard wraps the venue's whole HTTP handler (this door, and the MCP and
// sign-in doors beside it), before any ServeMux sees a request:
//   - references with slashes in asset, operation and secret routes are
//     folded into one path segment, so the mux neither splits nor "cleans"
//     them (see rewriteRefPaths);
//   - a path with an empty or dot segment is answered in JSON, where the mux
//     would redirect with an HTML page;
//   - reading a request body gives up when no data has arrived for
//     Options.BodyTimeout, so a client that stalls cannot hold a handler
//     forever, while a large upload that keeps moving is never cut off;
//   - web pages of other sites cannot use the venue (see foreignPages).
func (s *Server) Guard(next http.Handler) http.Handler {
	return s.foreignPages(rewriteRefPaths(refuseUncleanPaths(refuseMisread(s.boundBodies(next)))))
}

// refRoutes are the routes whose last path segment is a reference that may
// hold slashes: asset ids (a/<hash>, <did>/a/<hash>, w/...), operation
// names (v/ops/core/read) and secret names (which may not, and are refused
// with the engine's message rather than an unknown-route 404).
var refRoutes = []struct {
	prefix  string
	content bool // the route also has a .../content form
}{
	{"/api/v1/assets/", true},
	{"/api/v1/operations/", false},
	{"/api/v1/secrets/", false},
}

// rewriteRefPaths lets a reference stand as one path segment, as clients
// send them unencoded (REFERENCE §14.3.7).
func rewriteRefPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		escaped := r.URL.EscapedPath()
		for _, rt := range refRoutes {
			tail, ok := strings.CutPrefix(escaped, rt.prefix)
			if !ok || tail == "" {
				continue
			}
			suffix := ""
			if t, ok := strings.CutSuffix(tail, "/content"); rt.content && ok && t != "" {
				tail, suffix = t, "/content"
			}
			ref := refOf(tail)
			r.URL.Path = rt.prefix + ref + suffix
			r.URL.RawPath = rt.prefix + url.PathEscape(ref) + suffix
			break
		}
		next.ServeHTTP(w, r)
	})
}

// refOf reads a reference from its escaped form in a URL path. A DID URL's
// DID keeps its escapes when it was sent as written: a did:web DID holds a
// literal %3A for a port, which decoding would turn into a separator of the
// DID. Everything else is decoded once, so a reference encoded as one
// segment (did%3Aweb..., did:web:host%253A8080%2Fa%2F..., a%2F...) reads
// the same as one sent with its slashes.
func refOf(escaped string) string {
	if strings.HasPrefix(escaped, "did:") {
		if i := indexSlash(escaped); i >= 0 {
			did, rest := escaped[:i], escaped[i+1:]
			if escaped[i] == '%' {
				rest = escaped[i+3:]
			}
			if strings.Contains(did, "%25") { // an escaped '%': the client encoded the DID
				did = unescape(did)
			}
			return did + "/" + unescape(rest)
		}
		if !strings.Contains(escaped, "%25") {
			return escaped // a DID alone (an asset's did:web:host%3A8080:a:<hex>), sent as written
		}
	}
	return unescape(escaped)
}

// indexSlash finds the first slash, raw or encoded as %2F.
func indexSlash(s string) int {
	raw := strings.IndexByte(s, '/')
	enc := strings.Index(strings.ToUpper(s), "%2F")
	if raw < 0 || (enc >= 0 && enc < raw) {
		return enc
	}
	return raw
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// refuseUncleanPaths answers a path with an empty ("//") or dot ("." or
// "..") segment with a JSON 400: Go's ServeMux would redirect it to the
// cleaned path with an HTML body, which no API client expects. A trailing
// slash is left to the routes. A query string that does not parse gets a
// JSON 400 too.
func refuseUncleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); unclean(p) {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf(
				"Path %s has an empty or dot segment: remove doubled slashes and '.' or '..' segments", clipPath(p)))
			return
		}
		// It would read as no query at all to the routes, which would
		// then say a parameter is missing.
		if q := r.URL.RawQuery; strings.IndexByte(q, '%') >= 0 {
			if _, err := url.ParseQuery(q); err != nil {
				writeJSONError(w, http.StatusBadRequest, fmt.Sprintf(
					"The query string is not valid: %s; write a literal %% as %%25", clipPath(strings.TrimPrefix(err.Error(), "invalid URL escape "))))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// refuseMisread answers with a JSON error what the routes would read as
// something else: a compressed body (415; read as sent it is "not UTF-8",
// or a content hash mismatch) and a query parameter given twice where
// one is read (400; the routes would drop the second without a word).
func refuseMisread(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if enc := r.Header.Get("Content-Encoding"); enc != "" && r.ContentLength != 0 && !strings.EqualFold(enc, "identity") {
			writeJSONError(w, http.StatusUnsupportedMediaType, fmt.Sprintf(
				"Content-Encoding %q is not supported: send the body uncompressed", clipPath(enc)))
			return
		}
		if name := repeatedParam(r); name != "" {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf(
				"Query parameter %q is given more than once, and this endpoint reads one: give it once", clipPath(name)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// repeatedParam names a query parameter given more than once where the
// routes would read only the first: every parameter but inspect's path.
func repeatedParam(r *http.Request) string {
	q := r.URL.RawQuery
	if strings.IndexByte(q, '&') < 0 {
		return ""
	}
	inspect := r.URL.Path == "/api/v1/values/inspect"
	seen := map[string]bool{}
	for part := range strings.SplitSeq(q, "&") {
		name, _, _ := strings.Cut(part, "=")
		if name, err := url.QueryUnescape(name); err == nil && name != "" && !(inspect && name == "path") {
			if seen[name] {
				return name
			}
			seen[name] = true
		}
	}
	return ""
}

func unclean(p string) bool {
	return strings.Contains(p, "//") || venue.HasDotSegment(p)
}

func clipPath(p string) string {
	if len(p) > 200 {
		return p[:200] + "…"
	}
	return p
}

// boundBodies gives every request body an idle deadline: each read may wait
// at most s.bodyTimeout for data. The deadline moves with every read, so a
// large upload that keeps arriving is never cut off. Once the body has
// ended no deadline is set again: net/http then reads ahead on the
// connection to notice a client that goes away, and a deadline firing
// there would cancel the request's context mid-wait. Every body but asset
// content, which streams to the store, is also charged to the venue's
// budget of held bodies (bodyBudget) until its handler returns.
func (s *Server) boundBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		content := r.Method == http.MethodPut && assetContent(r)
		// A body said to be larger than any REST endpoint but asset content
		// takes is refused before a byte of it is read (or waited for). The
		// other doors answer in their own protocols' words.
		if r.ContentLength > s.maxBody && strings.HasPrefix(r.URL.Path, "/api/") && !content {
			writeError(w, bodyError(&http.MaxBytesError{Limit: s.maxBody}, s.maxBody))
			return
		}
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		dl, ok := w.(deadliner) // net/http's own writer is one: no allocation on the hot path
		if !ok {
			dl = http.NewResponseController(w)
		}
		b := &idleBody{ReadCloser: r.Body, dl: dl, idle: s.bodyTimeout, w: w, ctx: r.Context(), left: r.ContentLength}
		if !content {
			b.budget = s.bodies
		}
		r.Body = b
		defer b.release() // also when a door's handler panics
		next.ServeHTTP(w, r)
	})
}

// assetContent reports whether r is on an asset's content route, whose
// body is binary and streams to the store. Only that route: a secret may be
// named "content" (PUT /api/v1/secrets/content), and its body is JSON like
// any other secret's.
func assetContent(r *http.Request) bool {
	ref, ok := strings.CutPrefix(r.URL.Path, "/api/v1/assets/")
	return ok && strings.HasSuffix(ref, "/content") && ref != "/content"
}

type deadliner interface{ SetReadDeadline(time.Time) error }

// idleBody is a request body whose reads give up after idle without data
// and, with a budget, are charged to it (see bodyBudget).
type idleBody struct {
	io.ReadCloser
	dl      deadliner
	idle    time.Duration
	done    bool
	w       http.ResponseWriter // for Retry-After on a refusal
	ctx     context.Context
	left    int64       // bytes the client said are still to come; -1 unknown
	budget  *bodyBudget // nil: not charged
	charge  bodyCharge
	refused error
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.refused != nil {
		return 0, b.refused
	}
	if b.done {
		return b.ReadCloser.Read(p)
	}
	want := b.charged(len(p))
	if want > 0 {
		if err := b.budget.take(b.ctx, &b.charge, want, b.idle); err != nil {
			b.refused = err
			b.w.Header().Set("Retry-After", "1")
			return 0, err
		}
		p = p[:want]
	}
	b.dl.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.ReadCloser.Read(p)
	if want > 0 {
		b.budget.give(&b.charge, want-int64(n))
		b.left -= int64(n)
	}
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		b.done = true // net/http clears the deadline as it starts reading ahead
		if b.budget != nil {
			b.budget.read(&b.charge)
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: net/http reads what is left of the body
		// before it answers, and must give up too.
		b.done = true
		err = venue.Errorf(venue.EINVALID, "The request body stalled: no data arrived for %s; send the whole body without pausing", b.idle)
	}
	return n, err
}

// release gives back what the body holds of the budget.
func (b *idleBody) release() {
	if b.budget != nil {
		b.budget.release(&b.charge)
	}
}

// charged is how much of a read of n bytes to charge first, and read: a
// piece at most, no more than the client said is left (but a byte, to see
// the end), nothing when the body is not charged.
func (b *idleBody) charged(n int) int64 {
	if b.budget == nil || n == 0 {
		return 0
	}
	want := min(int64(n), chargePiece)
	if b.left >= 0 {
		want = min(want, max(b.left, 1))
	}
	return want
}
