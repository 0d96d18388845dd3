package rest

import (
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// registerInvokeHandler mounts POST /api/v1/invoke as a plain handler. It is
// the venue's hottest path, and Huma's per-request work (reflection over the
// input and output structs) was a tenth of its cost; the body is decoded by
// decodeInvoke either way, and the OpenAPI entry is added by hand with the
// same schemas.
func (s *Server) registerInvokeHandler() {
	s.mux.HandleFunc("POST /api/v1/invoke", s.invoke)
	reg := s.api.OpenAPI().Components.Schemas
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "invoke", Method: http.MethodPost, Path: "/api/v1/invoke",
		Summary: "Invoke an operation", Tags: []string{"Invocation"},
		Description: "Records a job and runs the operation. The response is the job record (201): PENDING at once, " +
			"or with wait the record when the job ends or the wait runs out.",
		Parameters: []*huma.Param{{Name: "wait", In: "query", Schema: &huma.Schema{Type: "string"},
			Description: "Overrides the body's wait: true, false or milliseconds"}},
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeFor[InvokeRequest](), true, "InvokeRequest")}}},
		Responses: map[string]*huma.Response{
			"201": {Description: "The job record", Headers: map[string]*huma.Param{"Location": {
				Description: "Where the job can be read", Schema: &huma.Schema{Type: "string"}}},
				Content: map[string]*huma.MediaType{"application/json": {Schema: reg.Schema(reflect.TypeFor[JobRecord](), true, "Job")}}},
			"400": errorResponse(s.api, "The reference resolves to nothing, the input breaks the operation's schema, or a UCAN in ucans is not a well-formed token"),
			"401": errorResponse(s.api, "The bearer token is invalid, or anonymous callers may not invoke here"),
			"403": errorResponse(s.api, "A well-formed UCAN in ucans failed verification (signature, time, audience or chain), or the caller lacks a capability"),
			"413": errorResponse(s.api, "The body is larger than the venue allows"),
			"429": retryLater(errorResponse(s.api, "The caller holds its limit of unfinished jobs (maxCallerJobs): let some finish, or cancel them")),
			"503": retryLater(errorResponse(s.api, "The job record could not be stored, or the venue holds its limit of unfinished jobs (maxJobs) or of request bodies (maxBodiesBytes)")),
			// Any other error the venue answers before or around the
			// handler (a compressed body, 415; a panic, 500), as every
			// Huma-registered route declares it.
			"default": errorResponse(s.api, "Any other error"),
		},
	})
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, s.maxBody)
	if err != nil {
		writeError(w, bodyError(err, s.maxBody))
		return
	}
	req, err := decodeInvoke(body)
	if err != nil {
		writeError(w, err)
		return
	}
	query := ""
	if r.URL.RawQuery != "" {
		query = r.URL.Query().Get("wait")
	}
	wait, err := parseWait(req.Wait, query)
	if err != nil {
		writeError(w, err)
		return
	}
	job, enc, err := s.e.InvokeJSON(r.Context(), runtime.InvokeRequest{Operation: req.Operation, Input: req.Input, Wait: wait, UCANs: req.UCANs})
	if err != nil {
		writeError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Location", "/api/v1/jobs/"+job.ID.String())
	w.WriteHeader(http.StatusCreated)
	if enc == nil {
		enc = job.AppendJSON(make([]byte, 0, 512))
	}
	w.Write(enc)
}

// readBody reads a request body of at most limit bytes, in one allocation
// when the client said how long it is. Past 64 KiB the buffer grows as the
// bytes arrive, doubling up to the length said: a client that only says
// its body is large makes the venue hold nothing (a large allocation made
// up front is cleared, and so in memory, before a byte arrives).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	n := r.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(body)
	}
	b := make([]byte, 0, min(n, 64<<10))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = slices.Grow(b, int(min(n, 2*int64(cap(b))))-len(b))
		}
		k, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err == io.EOF && int64(len(b)) < n {
			return b, io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return b, err
		}
	}
	return b, nil
}

// bodyError words a failure to read a request body.
func bodyError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return venue.Errorf(venue.ETOOLARGE, "request body is too large limit=%d bytes", limit)
	}
	var ve *venue.Error
	if errors.As(err, &ve) { // Guard's stalled body, already worded
		return ve
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return venue.Errorf(venue.EINVALID, "Could not read the request body: %s", msg)
}
