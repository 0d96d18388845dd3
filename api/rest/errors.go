package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// ErrorBody is the body of every error response: {"error": "..."}.
type ErrorBody struct {
	status  int
	Message string `json:"error" doc:"What went wrong and what to fix" example:"Job not found: 0x0192f3c4a5b6c7d8e9f0011223344556"`
	cause   error  // an internal error's own words, for the request log only (noteCause)
}

func (e *ErrorBody) Error() string  { return e.Message }
func (e *ErrorBody) GetStatus() int { return e.status }

// GetHeaders gives a refusal for want of room a Retry-After (Huma writes
// it): 429 when the caller holds its share of unfinished jobs, 503 when
// the venue holds its limit, is stopping or cannot reach its store.
func (e *ErrorBody) GetHeaders() http.Header {
	if busy(e.status) {
		return http.Header{"Retry-After": {"1"}}
	}
	return nil
}

func busy(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// statusOf is the one mapping from the venue's error codes to HTTP statuses.
func statusOf(code string) int {
	switch code {
	case venue.EINVALID:
		return http.StatusBadRequest
	case venue.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case venue.EFORBIDDEN:
		return http.StatusForbidden
	case venue.ENOTFOUND:
		return http.StatusNotFound
	case venue.ECONFLICT:
		return http.StatusConflict
	case venue.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case venue.ETOOMANY:
		return http.StatusTooManyRequests
	case venue.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case venue.ETIMEOUT:
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// toAPI converts an engine error for a Huma handler to return.
func toAPI(err error) error {
	return &ErrorBody{status: statusOf(venue.ErrorCode(err)), Message: venue.ErrorMessage(err), cause: internal(err)}
}

// writeError writes err as JSON from a plain net/http handler.
func writeError(w http.ResponseWriter, err error) {
	noteCause(w, internal(err))
	writeJSONError(w, statusOf(venue.ErrorCode(err)), venue.ErrorMessage(err))
}

// internal is err if the caller sees it only as "Internal error" (a bug,
// a statement that failed) or "try again" (a store that cannot be reached),
// which the request log must then say in its own words: nothing else does.
// Nil otherwise.
func internal(err error) error {
	if c := venue.ErrorCode(err); c == venue.EINTERNAL || c == venue.EUNAVAILABLE {
		return err
	}
	return nil
}

// noteCause hands cause to the request log (logRequests) through the
// response writer it wrapped, found under any writer wrapping it since.
func noteCause(w http.ResponseWriter, cause error) {
	for cause != nil {
		switch x := w.(type) {
		case *statusWriter:
			x.cause = cause
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return
		}
	}
}

// noteErrorBody is the Huma transformer passing an error body's cause on
// to the request log: Huma writes the body a handler returned.
func noteErrorBody(ctx huma.Context, _ string, v any) (any, error) {
	if e, ok := v.(*ErrorBody); ok && e.cause != nil {
		if w, ok := ctx.BodyWriter().(http.ResponseWriter); ok {
			noteCause(w, e.cause)
		}
	}
	return v, nil
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	if busy(status) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// As Huma writes its errors: a message quoting '<' shows it so on every
	// route (JSON is never read as HTML here).
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(&ErrorBody{Message: msg})
}

// installErrors replaces Huma's RFC 9457 errors with the spec's
// {"error": "..."} bodies. Huma keeps its error constructor in a package
// variable, so this is process-wide; it is idempotent and done once.
var installErrors = sync.OnceFunc(func() {
	huma.NewError = newError
	huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		if msg == "request body is required" && ctx != nil && len(errs) == 0 {
			return &ErrorBody{status: http.StatusBadRequest, Message: emptyBody(ctx.Operation())}
		}
		return newError(status, msg, errs...)
	}
})

// emptyBody says what to send to op instead of an empty body.
func emptyBody(op *huma.Operation) string {
	want := "a JSON body: /openapi describes this endpoint's"
	if op != nil {
		switch op.OperationID {
		case "put-secret":
			want = `the secret as a JSON string, or as {"value": "..."}`
		case "reply-job":
			want = "the message for the job as JSON"
		case "run":
			want = emptyInvoke
		case "register-asset":
			want = "the asset's metadata as a JSON object"
		}
	}
	return "The request body is empty: send " + want
}

// newError words Huma's own failures (bad JSON, schema violations, bodies
// too large) as a message naming the field and what is wrong with it. It
// never echoes the offending value: it may be a secret. The spec has no 422,
// so schema violations are 400.
func newError(status int, msg string, errs ...error) huma.StatusError {
	var details []string
	notJSON, ownWords := false, len(errs) > 0
	for _, err := range errs {
		var ve *venue.Error
		if errors.As(err, &ve) && len(errs) == 1 {
			// The venue's own error (a body that is not UTF-8), worded
			// whole already.
			return &ErrorBody{status: statusOf(ve.Code), Message: ve.Message}
		}
		var d *huma.ErrorDetail
		if errors.As(err, &d) {
			if status == http.StatusBadRequest && d.Location == "body" {
				notJSON = true
			}
			detail := describeDetail(d)
			ownWords = ownWords && referenceWorded(detail)
			details = append(details, detail)
		} else if err != nil {
			ownWords = false
			details = append(details, err.Error())
		}
	}
	switch {
	case ownWords && (status == http.StatusUnprocessableEntity || msg == "validation failed"):
		return &ErrorBody{status: http.StatusBadRequest, Message: strings.Join(details, "; ")}
	case notJSON:
		return &ErrorBody{status: http.StatusBadRequest, Message: "Request body is not valid JSON: " + strings.Join(details, "; ")}
	case status == http.StatusUnprocessableEntity || msg == "validation failed":
		return &ErrorBody{status: http.StatusBadRequest, Message: "Invalid request: " + strings.Join(details, "; ")}
	case msg == "cannot read request body":
		return &ErrorBody{status: http.StatusBadRequest, Message: "Could not read the request body: " + strings.Join(details, "; ")}
	case len(details) > 0:
		msg = fmt.Sprintf("%s: %s", msg, strings.Join(details, "; "))
	}
	return &ErrorBody{status: status, Message: msg}
}

// referenceWorded reports whether a detail is a whole message in the
// reference venue's words (see describeDetail), which "Invalid request:"
// would only prefix twice.
func referenceWorded(detail string) bool {
	return strings.HasPrefix(detail, "Missing '") || strings.HasPrefix(detail, "Invalid integer query parameter '")
}

func describeDetail(d *huma.ErrorDetail) string {
	msg := d.Message
	// encoding/json names Go types ("into Go struct field X of type Y"),
	// which mean nothing to a client; the location already names the field.
	if before, after, found := strings.Cut(msg, " into Go "); found {
		if strings.HasPrefix(before, "json: cannot unmarshal number") && strings.HasSuffix(after, "float64") {
			msg = "a number out of the range JSON numbers have here (a double, up to about 1.8e308)"
		} else {
			msg = strings.TrimPrefix(before, "json: ") + " here: wrong type"
		}
	}
	if strings.HasPrefix(msg, "unknown content type") {
		msg += "; send the body as application/json"
	}
	// Query parameters in the reference venue's words, which its clients
	// know.
	if name, ok := strings.CutPrefix(d.Location, "query."); ok {
		switch msg {
		case "required query parameter is missing":
			return fmt.Sprintf("Missing '%s' query parameter", name)
		case "invalid integer":
			return fmt.Sprintf("Invalid integer query parameter '%s': %s", name, clipPath(fmt.Sprint(d.Value)))
		}
	}
	if d.Location == "" {
		return msg
	}
	return d.Location + ": " + msg
}

var reflectErrorType = reflect.TypeFor[ErrorBody]()

// retryLater documents the Retry-After header a refusal for want of room
// (429, 503) carries.
func retryLater(r *huma.Response) *huma.Response {
	if r.Headers == nil {
		r.Headers = map[string]*huma.Param{}
	}
	r.Headers["Retry-After"] = &huma.Param{Description: "Seconds to wait before trying again",
		Schema: &huma.Schema{Type: "integer"}}
	return r
}

func errorResponse(api huma.API, desc string) *huma.Response {
	schema := api.OpenAPI().Components.Schemas.Schema(reflectErrorType, true, "Error")
	return &huma.Response{Description: desc, Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}
}
