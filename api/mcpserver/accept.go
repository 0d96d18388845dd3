package mcpserver

import (
	"bytes"
	"mime"
	"net/http"
	"strings"
)

// accepts reads Accept header values: whether they take JSON and whether
// they take an event stream.
func accepts(values []string) (jsonOK, streamOK bool) {
	for _, v := range values {
		for _, tok := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(tok, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

func acceptsBoth(values []string) bool {
	jsonOK, streamOK := accepts(values)
	return jsonOK && streamOK
}

// negotiate lets a POST that accepts only one of the two types MCP asks
// for through to the SDK, which refuses it (400). The door answers every
// POST in JSON, which a client accepting JSON only reads as it is; to one
// accepting event streams only, the answer goes out as one SSE message,
// through the returned writer. The reference venue answers both kinds.
func negotiate(w http.ResponseWriter, r *http.Request) (*http.Request, *sseFrame) {
	values := r.Header.Values("Accept")
	jsonOK, streamOK := accepts(values)
	if len(values) == 0 || jsonOK == streamOK {
		return r, nil
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", "application/json, text/event-stream")
	if jsonOK {
		return r, nil
	}
	return r, &sseFrame{ResponseWriter: w}
}

// sseFrame turns a JSON answer into a single SSE message event: it holds
// the body until finish, then writes it as data lines (SSE joins them with
// newlines, so the client reads the JSON as written). Any other answer (an
// empty 202, a non-JSON refusal) passes through untouched.
type sseFrame struct {
	http.ResponseWriter
	wrote   bool
	framing bool
	body    bytes.Buffer
}

func (f *sseFrame) WriteHeader(code int) {
	if f.wrote {
		return
	}
	f.wrote = true
	h := f.Header()
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "application/json" {
		f.framing = true
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Del("Content-Length")
	}
	f.ResponseWriter.WriteHeader(code)
}

func (f *sseFrame) Write(p []byte) (int, error) {
	f.WriteHeader(http.StatusOK)
	if !f.framing {
		return f.ResponseWriter.Write(p)
	}
	return f.body.Write(p)
}

// finish writes the held JSON as the event.
func (f *sseFrame) finish() {
	if !f.framing {
		return
	}
	var out bytes.Buffer
	out.WriteString("event: message\n")
	for line := range strings.SplitSeq(strings.TrimRight(f.body.String(), "\r\n"), "\n") {
		out.WriteString("data: ")
		out.WriteString(strings.TrimSuffix(line, "\r"))
		out.WriteByte('\n')
	}
	out.WriteByte('\n')
	f.ResponseWriter.Write(out.Bytes()) //nolint:errcheck // the client has gone; nothing to tell it
}
