package rest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
)

// sseKeepAlive is how often an idle stream gets a comment line, so proxies
// and clients do not take a long-running job for a dead connection.
const sseKeepAlive = 15 * time.Second

// registerSSE mounts the job event stream. It is a plain handler, because
// errors must be JSON with a status before the stream starts and the
// stream must end after the job's terminal record; the OpenAPI entry is
// added by hand.
func (s *Server) registerSSE() {
	s.mux.HandleFunc("GET /api/v1/jobs/{id}/sse", s.streamJob)
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "stream-job", Method: http.MethodGet, Path: "/api/v1/jobs/{id}/sse",
		Summary: "Stream a job's status changes (Server-Sent Events)", Tags: []string{"Jobs"},
		Description: "Sends the current record, then one `job-update` event per change; each event's data is the full job record (JSON). " +
			"The stream ends after a terminal record. Clients whose stream drops may poll GET /api/v1/jobs/{id}.",
		Parameters: []*huma.Param{{Name: "id", In: "path", Required: true, Schema: &huma.Schema{Type: "string"},
			Description: "Job id: 32 hex digits, with or without 0x"}},
		Responses: map[string]*huma.Response{
			"200": {Description: "An event stream", Headers: map[string]*huma.Param{"Cache-Control": {Schema: &huma.Schema{Type: "string"}, Description: "no-cache"}},
				Content: map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: "string"}}}},
			"400":     errorResponse(s.api, "A malformed job id"),
			"401":     errorResponse(s.api, "The bearer token is invalid, or anonymous callers may not read here"),
			"404":     errorResponse(s.api, "No such job"),
			"406":     errorResponse(s.api, "The client does not accept text/event-stream"),
			"default": errorResponse(s.api, "Any other error"),
		},
	})
}

func (s *Server) streamJob(w http.ResponseWriter, r *http.Request) {
	if !acceptsEventStream(r.Header.Get("Accept")) {
		writeJSONError(w, http.StatusNotAcceptable, "This endpoint streams Server-Sent Events; send Accept: text/event-stream (or omit the Accept header)")
		return
	}
	id, err := venue.ParseJobID(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	events, err := s.e.Watch(r.Context(), id)
	if err != nil {
		writeError(w, err)
		return
	}
	s.streaming.Add(1)
	defer s.streaming.Add(-1)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	tick := time.NewTicker(sseKeepAlive)
	defer tick.Stop()
	buf := make([]byte, 0, 1024)
	sent := func() {}
	for {
		select {
		case j, ok := <-events:
			if !ok {
				return
			}
			if sent, err = s.eventCharge(r.Context(), j); err != nil {
				return // the client reconnects, or reads the record
			}
			buf = appendEvent(buf[:0], j)
		case <-tick.C:
			buf = append(buf[:0], ": keep-alive\n\n"...)
		case <-s.closing:
			// The venue is shutting down, and has recorded how its jobs
			// ended: the engine ends the stream after those ends, which go
			// out; then clients poll or reconnect.
			buf = drainEvents(buf[:0], events, time.After(closingDrain))
			rc.SetWriteDeadline(time.Now().Add(closingDrain))
			w.Write(buf)
			rc.Flush()
			return
		}
		// A client that stops reading would hold its stream, and what is
		// queued for it, for as long as it stays connected (an audit's
		// 200 that never read held 8 GB of records): each event must go
		// out within sseWriteTimeout.
		rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		_, err := w.Write(buf)
		if err == nil {
			err = rc.Flush()
		}
		sent()
		sent = func() {}
		if cap(buf) > bigRecord {
			buf = make([]byte, 0, 1024) // a large record's room goes with its charge
		}
		if err != nil {
			return
		}
	}
}

// sseWriteTimeout bounds how long one event may take to reach a client.
const sseWriteTimeout = 30 * time.Second

// closingDrain bounds how long a stream waits, as the venue shuts down, for
// the engine to end it; an engine that closed ends it at once.
const closingDrain = time.Second

// drainEvents appends the events left until the stream ends or giveUp.
func drainEvents(buf []byte, events <-chan *venue.Job, giveUp <-chan time.Time) []byte {
	for {
		select {
		case j, ok := <-events:
			if !ok {
				return buf
			}
			buf = appendEvent(buf, j)
		case <-giveUp:
			return buf
		}
	}
}

// appendEvent frames a record as one SSE event. The record's JSON has no
// newlines, so it fits one data line.
func appendEvent(b []byte, j *venue.Job) []byte {
	b = append(b, "event: job-update\nid: "...)
	b = strconv.AppendInt(b, j.Version, 10)
	b = append(b, "\ndata: "...)
	b = j.AppendJSON(b)
	return append(b, '\n', '\n')
}

// acceptsEventStream is true when Accept is absent or its most specific
// media range covering text/event-stream (the type, text/*, */*, in any
// letter case) has a quality above 0, as RFC 9110 reads it.
func acceptsEventStream(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	best, ok := -1, false // the specificity of the range that decides, and its verdict
	for r := range strings.SplitSeq(accept, ",") {
		media, params, _ := strings.Cut(r, ";")
		rank := slices.Index([]string{"*/*", "text/*", "text/event-stream"}, strings.ToLower(strings.TrimSpace(media)))
		if rank > best {
			best, ok = rank, !zeroQuality(params)
		}
	}
	return ok
}

// zeroQuality reports whether a media range's parameters give it q=0,
// which means "not acceptable".
func zeroQuality(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q == 0
		}
	}
	return false
}
