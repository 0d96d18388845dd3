package docsui

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
)

// Paths served by Handler.
const (
	swaggerPage   = "/swagger"
	swaggerCSS    = "/swagger/swagger-ui.css"
	swaggerBundle = "/swagger/swagger-ui-bundle.js"
	redocPage     = "/redoc"
	redocBundle   = "/redoc/redoc.standalone.js"
)

// handler holds every response, built once; its only mutable state is each
// asset's lazily compressed body.
type handler struct {
	routes map[string]*asset
}

// Handler returns the handler for the Swagger UI and ReDoc pages and their
// scripts and stylesheet, all pointing the UIs at specURL (for the venue,
// "/openapi"). The pages name their scripts and stylesheet under prefix,
// the path the site is served under ("" at the root, "/venue" behind a
// proxy that serves it there), and specURL should carry it too; the
// handler itself serves them at the paths without it. Any other path, or a
// method other than GET or HEAD, gets a 404 with a JSON body
// {"error":"Endpoint <METHOD> <path> not found"}.
//
// The pages send a Content-Security-Policy that confines scripts, styles,
// fonts and images to the venue itself, so a UI can never quietly reach out
// to a CDN. Requests made by the UIs' "Try it out" stay unrestricted because
// the document's servers may name another origin.
func Handler(prefix, specURL string) http.Handler {
	css := embedded("swagger-ui/swagger-ui.css", "text/css; charset=utf-8")
	swagger := embedded("swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8")
	redoc := patched("redoc/redoc.standalone.js", "text/javascript; charset=utf-8", redocLogo, "data:,")
	return &handler{routes: map[string]*asset{
		swaggerPage:   swaggerUIPage(specURL, prefix+css.versionedURL(swaggerCSS), prefix+swagger.versionedURL(swaggerBundle)),
		swaggerCSS:    css,
		swaggerBundle: swagger,
		redocPage:     redocUIPage(specURL, prefix+redoc.versionedURL(redocBundle)),
		redocBundle:   redoc,
	}}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.routes[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		notFound(w, r)
		return
	}
	a.serve(w, r)
}

// notFound uses the wording of the reference venue, which clients match to
// detect missing features.
func notFound(w http.ResponseWriter, r *http.Request) {
	body, _ := json.Marshal(map[string]string{ // a string map always marshals
		"error": "Endpoint " + r.Method + " " + r.URL.Path + " not found",
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	w.Write(body)
}

// The pages declare an empty data: icon so that browsers do not ask the venue
// for /favicon.ico on every visit.
const swaggerHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Venue API — Swagger UI</title>
<link rel="stylesheet" href="{{.Stylesheet}}">
<style>body { margin: 0; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script src="{{.Script}}"></script>
<script>{{.Boot}}</script>
</body>
</html>
`

const redocHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Venue API — ReDoc</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="{{.SpecURL}}"></redoc>
<script src="{{.Script}}"></script>
</body>
</html>
`

// page is the data of both page templates. Boot is inline JavaScript built by
// this package; the CSP allows exactly that script by its hash.
type page struct {
	SpecURL, Stylesheet, Script string
	Boot                        template.JS
}

func swaggerUIPage(specURL, cssURL, scriptURL string) *asset {
	// json.Marshal escapes <, > and &, so the URL cannot end the script
	// element. validatorUrl: null stops Swagger UI from sending the document
	// to validator.swagger.io for its badge.
	url, _ := json.Marshal(specURL) // a string always marshals
	boot := `SwaggerUIBundle({url: ` + string(url) + `, dom_id: "#swagger-ui", validatorUrl: null});`
	return newPage(swaggerHTML, page{Stylesheet: cssURL, Script: scriptURL, Boot: template.JS(boot)})
}

// redocLogo is the sidebar logo ReDoc 2 always draws, from its CDN, with no
// option to stop it. The bundle is served with the URL replaced by an empty
// data: URL: the image fails to decode and removes itself, as it did when
// the page's CSP blocked the CDN, but no request is made and the browser
// reports no CSP violation.
const redocLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg"

func redocUIPage(specURL, scriptURL string) *asset {
	// The standalone bundle finds the <redoc> element and loads spec-url by
	// itself, so the page needs no inline script.
	return newPage(redocHTML, page{SpecURL: specURL, Script: scriptURL})
}

// newPage renders a page once per Handler; html/template escapes the spec URL
// for the attribute it lands in.
func newPage(html string, p page) *asset {
	var b strings.Builder
	t := template.Must(template.New("page").Parse(html))
	if err := t.Execute(&b, p); err != nil {
		panic("docsui: page template: " + err.Error()) // fixed templates, string data
	}
	a := newAsset([]byte(b.String()), "text/html; charset=utf-8", cacheRevalidate)
	a.csp = contentSecurityPolicy(string(p.Boot))
	return a
}

func contentSecurityPolicy(inlineScript string) string {
	scripts := "'self'"
	if inlineScript != "" {
		sum := sha256.Sum256([]byte(inlineScript))
		scripts += " 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	// Both UIs set inline styles from JavaScript, and ReDoc runs its search
	// index in a worker created from a blob: URL.
	return "default-src 'self'; script-src " + scripts +
		"; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:" +
		"; worker-src 'self' blob:; connect-src *; object-src 'none'; base-uri 'none'; frame-ancestors 'self'"
}
