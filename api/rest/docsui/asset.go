package docsui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The license files sit beside the scripts but are not embedded: the binary
// only needs what browsers fetch.
//
//go:embed assets/swagger-ui/swagger-ui-bundle.js assets/swagger-ui/swagger-ui.css assets/redoc/redoc.standalone.js
var assetFS embed.FS

const (
	// The asset URLs carry a content hash in their query string (see
	// asset.versionedURL), so a browser may keep them until the binary
	// changes them.
	cacheImmutable = "public, max-age=31536000, immutable"
	// Pages are tiny and embed the spec URL: revalidate them every time.
	cacheRevalidate = "no-cache"
)

// asset is one response body with its headers fixed when the handler is built.
type asset struct {
	body         []byte
	contentType  string
	cacheControl string
	etag         string
	csp          string // Content-Security-Policy of a page; empty for scripts and CSS
	compress     bool   // worth gzipping: the large scripts and CSS

	gzipOnce sync.Once
	gzipBody []byte
}

func newAsset(body []byte, contentType, cacheControl string) *asset {
	sum := sha256.Sum256(body)
	return &asset{
		body:         body,
		contentType:  contentType,
		cacheControl: cacheControl,
		etag:         `"` + hex.EncodeToString(sum[:12]) + `"`,
	}
}

// embedded builds an asset from a file that go:embed already checked at
// compile time; a failure here means the embed pattern and name disagree.
func embedded(name, contentType string) *asset {
	body, err := assetFS.ReadFile("assets/" + name)
	if err != nil {
		panic("docsui: embedded asset missing: " + err.Error())
	}
	a := newAsset(body, contentType, cacheImmutable)
	a.compress = true
	return a
}

// patched builds an asset from an embedded file with one piece of text
// replaced; the text must be there (the files are pinned, see the README of
// assets/).
func patched(name, contentType, old, replacement string) *asset {
	body, err := assetFS.ReadFile("assets/" + name)
	if err != nil || !bytes.Contains(body, []byte(old)) {
		panic("docsui: " + name + " does not contain " + old)
	}
	a := newAsset(bytes.ReplaceAll(body, []byte(old), []byte(replacement)), contentType, cacheImmutable)
	a.compress = true
	return a
}

// versionedURL is the asset's path with its content hash appended, so that a
// new binary with new assets never meets a stale immutable browser cache.
func (a *asset) versionedURL(path string) string {
	return path + "?v=" + strings.Trim(a.etag, `"`)[:12]
}

func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if a.csp != "" {
		h.Set("Content-Security-Policy", a.csp)
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", a.cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	body, etag := a.body, a.etag
	if a.compress {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = a.gzipped(), strings.TrimSuffix(a.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	// ServeContent answers If-None-Match, HEAD and Range for us.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// gzipped compresses on first use rather than at start-up, so a venue whose
// docs are never opened pays nothing.
func (a *asset) gzipped() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // valid level: no error
		zw.Write(a.body)                                         // a bytes.Buffer does not fail
		zw.Close()
		a.gzipBody = buf.Bytes()
	})
	return a.gzipBody
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip. An
// explicit gzip entry wins over "*", and q=0 is a refusal.
func acceptsGzip(header string) bool {
	star := 0.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "gzip", "x-gzip":
			return qValue(params) > 0
		case "*":
			star = qValue(params)
		}
	}
	return star > 0
}

func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return 0
			}
			return q
		}
	}
	return 1
}
