package rest

import (
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
)

// identify puts the request's caller into its context; the engine reads it
// from there and from nowhere else.
func (s *Server) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.auth.Authenticate(r)
		if err != nil {
			writeError(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(venue.WithCaller(r.Context(), c)))
	})
}

// jsonByDefault treats a JSON endpoint's body as JSON when the client sent
// no Content-Type or the form type curl -d sends by default, so the
// walk-through works without -H; a body that is not JSON still gets a clear
// "not valid JSON" error. A JSON type in any letter case or spacing reads
// as application/json, and a JSON body must be UTF-8 (invoke and run check
// that on the body they read whole). Asset content is binary and left
// alone.
func jsonByDefault(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodPost || r.Method == http.MethodPut) && strings.HasPrefix(r.URL.Path, "/api/v1/") &&
			!assetContent(r) {
			ct := r.Header.Get("Content-Type")
			if ct != "application/json" && readsAsJSON(ct) {
				r.Header.Set("Content-Type", "application/json")
				ct = "application/json"
			}
			wholeBody := r.URL.Path == "/api/v1/invoke" || r.URL.Path == "/api/v1/run"
			if wholeBody && ct != "application/json" {
				// Their bodies are read whole and never reach Huma's
				// check of the type: refused here in its words.
				writeError(w, venue.Errorf(venue.EINVALID, "Invalid request: unknown content type: %s; send the body as application/json", clipPath(ct)))
				return
			}
			if ct == "application/json" && !wholeBody {
				r.Body = &utf8Body{r: r.Body}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// readsAsJSON reports whether a body sent as ct is read as JSON: no type,
// the types curl and forms send by default, or application/json or a
// +json type however it is spelled.
func readsAsJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct == ""
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/x-www-form-urlencoded" || mt == "text/plain"
}

// blame is where a handler notes that its 5xx answer is an operation's
// failure (a job that ended FAILED), which the request log then reports
// as a warning rather than as the venue's error: a guest that fails on
// purpose should not fill the operator's log with errors.
type blame struct{ operation bool }

type blameKey struct{}

// blameOperation marks the request of ctx as failed by its operation.
func blameOperation(ctx context.Context) {
	if b, ok := ctx.Value(blameKey{}).(*blame); ok {
		b.operation = true
	}
}

// LogRequests logs each request next serves as the REST door logs its
// own, for the doors mounted beside it (sign-in, MCP, the profiler).
func (s *Server) LogRequests(next http.Handler) http.Handler { return s.logRequests(next) }

// logRequests logs each request at the edge, with its outcome.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		var b *blame
		if r.URL.Path == "/api/v1/run" { // the one route answering an operation's failure with a 5xx
			b = &blame{}
			r = r.WithContext(context.WithValue(r.Context(), blameKey{}, b))
		}
		next.ServeHTTP(sw, r)
		level := slog.LevelDebug
		switch {
		case sw.status >= 500 && r.Context().Err() != nil:
			level = slog.LevelInfo // the client left before its answer: not the venue's failure
		case sw.status >= 500 && b != nil && b.operation, sw.status == http.StatusServiceUnavailable:
			level = slog.LevelWarn // an operation's failure; a bound met, or a store away, which the engine logs itself
		case sw.status >= 500:
			level = slog.LevelError
		}
		if s.log.Enabled(r.Context(), level) { // the arguments cost allocations on every request
			args := []any{"method", r.Method, "path", r.URL.Path, "status", sw.status, "ms", time.Since(start).Milliseconds()}
			if sw.cause != nil { // what the client saw only as "Internal error"
				args = append(args, "err", sw.cause)
			}
			s.log.Log(r.Context(), level, "request", args...)
		}
	})
}

// recoverPanics turns a panic in a handler into a 500 instead of a dropped
// connection, and logs it; the server keeps serving.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				writeJSONError(w, http.StatusInternalServerError, "Internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	cause  error // of an internal error answered (noteCause)
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach Flush on the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// notFound answers unknown routes in JSON. The wording starts "Endpoint
// <METHOD> <path>" because the TypeScript SDK detects missing features by it.
// A known path asked with the wrong method gets 405 and an Allow header.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeJSONError(w, http.StatusMethodNotAllowed, fmt.Sprintf("Endpoint %s %s not allowed: use %s", r.Method, r.URL.Path, strings.Join(allowed, " or ")))
		return
	}
	writeJSONError(w, http.StatusNotFound, fmt.Sprintf("Endpoint %s %s not found", r.Method, r.URL.Path))
}
