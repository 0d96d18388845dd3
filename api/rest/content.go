package rest

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// registerContent mounts asset content upload and download as plain
// handlers so bodies stream instead of being read whole into memory (Huma
// buffers request bodies). Their OpenAPI entries are added by hand.
func (s *Server) registerContent() {
	s.mux.HandleFunc("GET /api/v1/assets/{id}/content", s.getContent)
	s.mux.HandleFunc("PUT /api/v1/assets/{id}/content", s.putContent)
	idParam := []*huma.Param{{Name: "id", In: "path", Required: true, Schema: &huma.Schema{Type: "string"},
		Description: assetRefDoc}}
	binary := &huma.Schema{Type: "string", Format: "binary"}
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "get-asset-content", Method: http.MethodGet, Path: "/api/v1/assets/{id}/content",
		Summary: "Download an asset's content", Tags: []string{"Assets"},
		Description: "Streams the content with the Content-Type of the metadata's content.contentType.",
		Parameters: append(idParam, &huma.Param{Name: "inline", In: "query", Schema: &huma.Schema{Type: "boolean"},
			Description: "Content-Disposition inline (display in the browser) instead of attachment"}),
		Responses: map[string]*huma.Response{
			"200": {Description: "The content", Content: map[string]*huma.MediaType{"application/octet-stream": {Schema: binary}}},
			"400": errorResponse(s.api, "A malformed asset reference or path, or an inline value that is not a boolean"),
			"403": errorResponse(s.api, "A path the caller may not read (another's namespace without a grant)"),
			"404": errorResponse(s.api, "No such asset, or it has no content"),
		},
	})
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "put-asset-content", Method: http.MethodPut, Path: "/api/v1/assets/{id}/content",
		Summary: "Upload an asset's content", Tags: []string{"Assets"},
		Description: "Streams the body into the asset's content. It is kept only if its SHA-256 equals content.sha256 of the metadata; otherwise 400 and nothing is stored.",
		Parameters:  idParam,
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/octet-stream": {Schema: binary}}},
		Responses: map[string]*huma.Response{
			"200": {Description: "The content's hash (JSON string, 0x and 64 hex digits)", Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "string"}}}},
			"400": errorResponse(s.api, "Hash mismatch, the metadata has no content.sha256, or an operation's module does not compile or has neither ABI"),
			"404": errorResponse(s.api, "No such asset"),
			"413": errorResponse(s.api, "Content larger than the venue allows (an operation's module: 64 MiB), or more than the caller may store as assets (maxUserAssetsBytes; content stored already costs nothing)"),
		},
	})
}

func (s *Server) getContent(w http.ResponseWriter, r *http.Request) {
	disposition, err := contentDisposition(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	c, err := s.content(r)
	if err != nil {
		writeError(w, err)
		return
	}
	defer c.Body.Close()
	if named := mime.FormatMediaType(disposition, map[string]string{"filename": c.FileName}); c.FileName != "" && named != "" {
		disposition = named
	}
	h := w.Header()
	h.Set("Content-Type", c.ContentType)
	h.Set("Content-Length", strconv.FormatInt(c.Size, 10))
	h.Set("Content-Disposition", disposition)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	out := &sendTo{w: w}
	if _, err := io.Copy(out, c.Body); err != nil {
		if out.err != nil { // the client went away: its business, not the operator's
			s.log.Debug("asset content download ended early", "asset", clipPath(r.PathValue("id")), "err", err)
			return
		}
		s.log.Warn("stream asset content", "asset", clipPath(r.PathValue("id")), "err", err)
	}
}

// sendTo is w, keeping its write error, which tells a client that went away
// from a store that failed.
type sendTo struct {
	w   io.Writer
	err error
}

func (s *sendTo) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// content opens the content of the asset the path names: by its id, or
// through the metadata a reference resolves to, which a path may hold
// without its being registered.
func (s *Server) content(r *http.Request) (*runtime.AssetContent, error) {
	ref := r.PathValue("id")
	if id, err := venue.ParseAssetID(ref); err == nil {
		return s.e.Content(r.Context(), id)
	}
	id, meta, err := s.e.ResolveAsset(r.Context(), ref)
	if err != nil {
		return nil, err
	}
	return s.e.ContentOf(r.Context(), id, meta)
}

// contentDisposition reads the inline parameter: present with no value or
// a true boolean (strconv's words), inline; absent or false, attachment.
func contentDisposition(q url.Values) (string, error) {
	inline := q.Has("inline")
	if v := q.Get("inline"); v != "" {
		var err error
		if inline, err = strconv.ParseBool(v); err != nil {
			return "", venue.Errorf(venue.EINVALID, "inline must be true or false, not %q", clipPath(v))
		}
	}
	if inline {
		return "inline", nil
	}
	return "attachment", nil
}

func (s *Server) putContent(w http.ResponseWriter, r *http.Request) {
	id, err := s.assetID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	if limit := s.e.MaxContentSize(); r.ContentLength > limit {
		// Closing keeps net/http from first reading what is left of the body
		// (it would wait for a client that sends nothing more).
		w.Header().Set("Connection", "close")
		writeError(w, venue.Errorf(venue.ETOOLARGE, "Cannot PUT asset content: Content exceeds maximum size of %d bytes", limit))
		return
	}
	// Not cancelled by a stop's drain: an upload under way goes on until the
	// server's shutdown timeout closes its connection (a client going away
	// ends it, through the body's reads).
	hash, err := s.e.PutContent(context.WithoutCancel(r.Context()), id, r.Body)
	if venue.ErrorCode(err) == venue.ETOOLARGE {
		w.Header().Set("Connection", "close") // refused part way: the rest is not read
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(venue.AppendString(nil, hash))
}
