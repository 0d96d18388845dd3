package rest

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
	str := &huma.Schema{Type: "string"}
	disposition := &huma.Param{Schema: str, Description: "attachment, or inline with inline=true; with the metadata's content.fileName as filename"}
	whole := map[string]*huma.Param{"ETag": {Schema: str}, "Accept-Ranges": {Schema: str}, "Content-Disposition": disposition}
	part := map[string]*huma.Param{"ETag": {Schema: str}, "Accept-Ranges": {Schema: str}, "Content-Range": {Schema: str}, "Content-Disposition": disposition}
	unsatisfiable := errorResponse(s.api, "A malformed byte range, or one that starts past the end (Content-Range: bytes */<size> gives the size)")
	unsatisfiable.Headers = map[string]*huma.Param{"Content-Range": {Schema: str}, "ETag": {Schema: str}, "Accept-Ranges": {Schema: str}}
	// The content comes with the media type its metadata names
	// (content.contentType), so any type may answer; octet-stream is what
	// content without one gets, and what generators read as bytes.
	anyType := func() map[string]*huma.MediaType {
		return map[string]*huma.MediaType{"application/octet-stream": {Schema: binary}, "*/*": {Schema: binary}}
	}
	unauthorized := errorResponse(s.api, "The bearer token is invalid, or anonymous callers may not do this here")
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "get-asset-content", Method: http.MethodGet, Path: "/api/v1/assets/{id}/content",
		Summary: "Download an asset's content", Tags: []string{"Assets"},
		Description: "Streams the content with the Content-Type of the metadata's content.contentType. " +
			"Its ETag is the content's SHA-256 (\"0x<hex>\"). One byte range may be asked for (Range: bytes=first-last, first- or -count), " +
			"as a download that resumes does; a field with several ranges, or with an If-Range that is not the current ETag, is answered with all of the content.",
		Parameters: append(idParam,
			&huma.Param{Name: "inline", In: "query", Schema: &huma.Schema{Type: "boolean"},
				Description: "Content-Disposition inline (display in the browser) instead of attachment"},
			&huma.Param{Name: "Range", In: "header", Schema: str, Description: "One byte range, e.g. bytes=0-1023, bytes=1024- or bytes=-512"},
			&huma.Param{Name: "If-Range", In: "header", Schema: str, Description: "The ETag the caller's earlier part came from: Range is honoured only if it is still current"},
			&huma.Param{Name: "If-None-Match", In: "header", Schema: str, Description: "ETags the caller holds (or *): when one matches, the answer is 304 with no body"}),
		Responses: map[string]*huma.Response{
			"200":     {Description: "The content, as the media type content.contentType of the metadata names (application/octet-stream when it names none)", Headers: whole, Content: anyType()},
			"206":     {Description: "The byte range asked for; Content-Range says where it lies", Headers: part, Content: anyType()},
			"304":     notModified("Accept-Ranges"),
			"400":     errorResponse(s.api, "A malformed asset reference or path, or an inline value that is not a boolean"),
			"401":     unauthorized,
			"403":     errorResponse(s.api, "A path the caller may not read (another's namespace without a grant)"),
			"404":     errorResponse(s.api, "No such asset, or it has no content"),
			"416":     unsatisfiable,
			"default": errorResponse(s.api, "Any other error"),
		},
	})
	s.api.OpenAPI().AddOperation(&huma.Operation{
		OperationID: "put-asset-content", Method: http.MethodPut, Path: "/api/v1/assets/{id}/content",
		Summary: "Upload an asset's content", Tags: []string{"Assets"},
		Description: "Streams the body into the asset's content. It is kept only if its SHA-256 equals content.sha256 of the metadata; otherwise 400 and nothing is stored.",
		Parameters:  idParam,
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/octet-stream": {Schema: binary}}},
		Responses: map[string]*huma.Response{
			"200":     {Description: "The content's hash (JSON string, 0x and 64 hex digits)", Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "string"}}}},
			"400":     errorResponse(s.api, "Hash mismatch, the metadata has no content.sha256, or an operation's module does not compile or has neither ABI"),
			"401":     unauthorized,
			"404":     errorResponse(s.api, "No such asset"),
			"413":     errorResponse(s.api, "Content larger than the venue allows (an operation's module: 64 MiB), or more than the caller may store as assets (maxUserAssetsBytes; content stored already costs nothing)"),
			"415":     errorResponse(s.api, "A Content-Encoding other than identity: send the content uncompressed"),
			"default": errorResponse(s.api, "Any other error"),
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
	h := w.Header()
	etag := hashTag(c.SHA256)
	h.Set("ETag", etag)
	h.Set("Accept-Ranges", "bytes")
	if noneMatch(strings.Join(r.Header.Values("If-None-Match"), ","), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	part, whole, err := rangeOf(r.Header.Get("Range"), c.Size)
	if ifRange := r.Header.Get("If-Range"); ifRange != "" && strings.TrimSpace(ifRange) != etag {
		// Another version's range (or one by date, which this content has
		// none of): the RFC answers with all of the current content.
		part, whole, err = byteRange{}, true, nil
	}
	if err != nil {
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", c.Size))
		writeJSONError(w, http.StatusRequestedRangeNotSatisfiable, err.Error())
		return
	}
	if whole {
		part = byteRange{length: c.Size}
	}
	if named := mime.FormatMediaType(disposition, map[string]string{"filename": c.FileName}); c.FileName != "" && named != "" {
		disposition = named
	}
	h.Set("Content-Type", c.ContentType)
	h.Set("Content-Length", strconv.FormatInt(part.length, 10))
	h.Set("Content-Disposition", disposition)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	if !whole {
		h.Set("Content-Range", part.contentRange(c.Size))
		w.WriteHeader(http.StatusPartialContent)
	}
	if r.Method == http.MethodHead {
		return
	}
	s.send(w, r, c.Body, part)
}

// send copies part of body to w. A failure after the header is out can
// only cut the answer short, so it is logged.
func (s *Server) send(w http.ResponseWriter, r *http.Request, body io.ReadSeeker, part byteRange) {
	out := &sendTo{w: w}
	_, err := body.Seek(part.start, io.SeekStart)
	if err == nil {
		_, err = io.CopyN(out, body, part.length)
	}
	if err == nil {
		return
	}
	if out.err != nil { // the client went away: its business, not the operator's
		s.log.Debug("asset content download ended early", "asset", clipPath(r.PathValue("id")), "err", err)
		return
	}
	s.log.Warn("stream asset content", "asset", clipPath(r.PathValue("id")), "err", err)
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
