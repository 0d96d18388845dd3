package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// InvokeRequest documents the body of invoke and run. The body itself is
// decoded by decodeInvoke: this is the venue's hottest endpoint, and one
// strict decode costs less than Huma's validate-then-decode.
type InvokeRequest struct {
	Operation string          `json:"operation" minLength:"1" doc:"Operation reference: catalog path (v/ops/<adapter>/<op>), workspace pin o/<name>, asset a/<hash> or 0x<hash>, registered name, or DID URL. The display form adapter:op is not a reference." example:"v/test/ops/echo"`
	Input     json.RawMessage `json:"input,omitempty" doc:"The operation's input, checked against its input schema" example:"{\"hello\":\"world\"}"`
	Wait      any             `json:"wait,omitempty" doc:"true waits for the job to finish (up to 120 s) and returns the final record; a number waits that many milliseconds; false or absent returns at once. A wait also ends when the job asks its caller (INPUT_REQUIRED or AUTH_REQUIRED) or is paused: only a reply, or a resume, moves it on. Ignored by run, which always waits."`
	UCANs     []string        `json:"ucans,omitempty" doc:"UCAN capability tokens proving the caller's authority"`
	Private   bool            `json:"private,omitempty" doc:"Accepted for client compatibility and ignored: invoke always records a job"`
}

// RunInput is a request for an operation's output only.
type RunInput struct {
	RawBody []byte
}

// RunOutput is the operation's bare output.
type RunOutput struct {
	Body rawJSON
}

func (s *Server) registerInvoke() {
	s.registerInvokeHandler()
	op := s.op("run", http.MethodPost, "/api/v1/run", "Run an operation and return its output", "Invocation")
	op.Description = "Invokes, waits for the job (up to 120 s) and answers with the operation's output alone. The job is still recorded. A failed job is an error response whose message is the job's error (\"Operation failed: ...\"), with the status of that error's kind (400, 404, 409, 413 or 504; 500 for any other; 401 or 403 for a REJECTED job); a job that asks its caller for input is a 409 (invoke it instead, and reply)."
	s.documentInvokeBody(&op)
	op = s.documentErrors(op, map[string]string{
		"400": "The reference resolves to nothing, the input breaks the operation's schema, a UCAN in ucans is not a well-formed token, or the job failed on input it found invalid",
		"401": "The bearer token is invalid, or anonymous callers may not do what the job did",
		"403": "A UCAN in ucans failed verification, or the caller lacks a capability the job needed (the job ended REJECTED)",
		"404": "The job failed on something it did not find (a job, asset, secret or value it named)",
		"409": "The job asks its caller for input (INPUT_REQUIRED or AUTH_REQUIRED): invoke it instead, and reply; or it failed on a conflict",
		"413": "The body is larger than the venue allows",
		"429": "The caller holds its limit of unfinished jobs (maxCallerJobs): let some finish, or cancel them",
		"503": "The job record could not be stored, the venue holds its limit of unfinished jobs (maxJobs) or of request bodies (maxBodiesBytes), or it stopped before the job ended",
		"504": "The job did not end within the wait; it goes on, and the message names it"})
	retryLater(op.Responses["503"])
	retryLater(op.Responses["429"])
	huma.Register(s.api, op, s.run)
	delete(op.RequestBody.Content, "application/octet-stream") // Huma's for a RawBody; the body is JSON
}

func (s *Server) documentInvokeBody(op *huma.Operation) {
	schema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[InvokeRequest](), true, "InvokeRequest")
	op.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}
	op.SkipValidateBody = true
}

func (s *Server) run(ctx context.Context, in *RunInput) (*RunOutput, error) {
	body, err := decodeInvoke(in.RawBody)
	if err != nil {
		return nil, toAPI(noOperation(err, "run"))
	}
	out, err := s.e.Run(ctx, runtime.InvokeRequest{Operation: body.Operation, Input: body.Input, UCANs: body.UCANs})
	if err != nil {
		if errors.Is(err, runtime.ErrOperationFailed) {
			blameOperation(ctx)
		}
		return nil, toAPI(err)
	}
	return &RunOutput{Body: rawJSON(out)}, nil
}

// maxWait is what wait=true means; the engine caps every wait at its own
// MaxWait as well.
const maxWait = 120 * time.Second

// parseWait reads wait as the reference venue does: a boolean, a number of
// milliseconds, or a string holding either. The query parameter wins.
func parseWait(body any, query string) (time.Duration, error) {
	v := body
	if query != "" {
		v = query
	}
	switch w := v.(type) {
	case nil:
		return 0, nil
	case bool:
		if w {
			return maxWait, nil
		}
		return 0, nil
	case float64:
		if w >= 0 && w == math.Trunc(w) {
			return time.Duration(min(w, float64(maxWait.Milliseconds()))) * time.Millisecond, nil
		}
	case string:
		switch w {
		case "true":
			return maxWait, nil
		case "false", "":
			return 0, nil
		}
		// Past int64 ParseInt gives its bound with ErrRange: a wait that
		// long is cut like any other, as a JSON number is above.
		if n, err := strconv.ParseInt(w, 10, 64); n >= 0 && (err == nil || errors.Is(err, strconv.ErrRange)) {
			return time.Duration(min(n, maxWait.Milliseconds())) * time.Millisecond, nil
		}
	}
	return 0, venue.Errorf(venue.EINVALID, "Invalid wait value %s: use true, false or a whole number of milliseconds (a longer wait than %d is cut to it)",
		clipValue(v), maxWait.Milliseconds())
}

// clipValue shows a wait value as JSON, as the client wrote it, shortened.
func clipValue(v any) string {
	b, err := json.Marshal(v)
	s := string(b)
	if err != nil {
		s = fmt.Sprint(v)
	}
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
