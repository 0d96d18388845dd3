package docsui_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gridvenue/venue/api/rest/docsui"
)

var update = flag.Bool("update", false, "rewrite testdata/sample-openapi.json")

const samplePath = "testdata/sample-openapi.json"

func get(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandler_Routes(t *testing.T) {
	h := docsui.Handler("", "/openapi")
	for _, tc := range []struct {
		name, path, wantType, wantCache, wantBody string
	}{
		{"swagger page", "/swagger", "text/html; charset=utf-8", "no-cache", `SwaggerUIBundle({url: "/openapi", dom_id: "#swagger-ui"`},
		{"swagger css", "/swagger/swagger-ui.css", "text/css; charset=utf-8", "public, max-age=31536000, immutable", ".swagger-ui"},
		{"swagger bundle", "/swagger/swagger-ui-bundle.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "SwaggerUIBundle"},
		{"redoc page", "/redoc", "text/html; charset=utf-8", "no-cache", `<redoc spec-url="/openapi"></redoc>`},
		{"redoc bundle", "/redoc/redoc.standalone.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", "spec-url"},
		{"query string ignored", "/swagger/swagger-ui.css?v=0123456789ab", "text/css; charset=utf-8", "public, max-age=31536000, immutable", ".swagger-ui"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(h, http.MethodGet, tc.path)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", w.Code)
			}
			if got := w.Header().Get("Content-Type"); got != tc.wantType {
				t.Errorf("Content-Type %q, want %q", got, tc.wantType)
			}
			if got := w.Header().Get("Cache-Control"); got != tc.wantCache {
				t.Errorf("Cache-Control %q, want %q", got, tc.wantCache)
			}
			if w.Header().Get("ETag") == "" {
				t.Error("no ETag")
			}
			if !strings.Contains(w.Body.String(), tc.wantBody) {
				t.Errorf("body (%d bytes) lacks %q", w.Body.Len(), tc.wantBody)
			}
		})
	}
}

func TestHandler_PageTitlesAndLinks(t *testing.T) {
	h := docsui.Handler("", "/openapi")
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"swagger", "/swagger", []string{"<title>Venue API — Swagger UI</title>", `<div id="swagger-ui">`,
			`href="/swagger/swagger-ui.css?v=`, `src="/swagger/swagger-ui-bundle.js?v=`, "validatorUrl: null"}},
		{"redoc", "/redoc", []string{"<title>Venue API — ReDoc</title>", `src="/redoc/redoc.standalone.js?v=`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := get(h, http.MethodGet, tc.path).Body.String()
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %q:\n%s", want, body)
				}
			}
			if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
				t.Errorf("page references an absolute URL:\n%s", body)
			}
		})
	}
}

func TestHandler_CSPAllowsOnlyTheInlineScript(t *testing.T) {
	w := get(docsui.Handler("", "/openapi"), http.MethodGet, "/swagger")
	body := w.Body.String()
	start := strings.LastIndex(body, "<script>") + len("<script>")
	end := strings.LastIndex(body, "</script>")
	sum := sha256.Sum256([]byte(body[start:end]))
	want := "script-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "';"
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, want) {
		t.Errorf("CSP %q lacks %q", csp, want)
	}
}

// TestHandler_ReDocAsksNothingOfItsCDN: ReDoc 2 draws its sidebar logo from
// cdn.redoc.ly; served as is, the page's CSP blocks that request and the
// browser reports a violation. The served bundle must not name the CDN.
func TestHandler_ReDocAsksNothingOfItsCDN(t *testing.T) {
	w := get(docsui.Handler("", "/openapi"), http.MethodGet, "/redoc/redoc.standalone.js")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "spec-url") {
		t.Fatalf("%d, %d bytes", w.Code, w.Body.Len())
	}
	if strings.Contains(w.Body.String(), "cdn.redoc.ly") {
		t.Fatal("the ReDoc bundle still loads its logo from cdn.redoc.ly")
	}
}

func TestHandler_SpecURLIsEscaped(t *testing.T) {
	h := docsui.Handler(`/v"><script>alert(2)//`, `/openapi?a="</script><script>alert(1)//`)
	for _, path := range []string{"/swagger", "/redoc"} {
		body := get(h, http.MethodGet, path).Body.String()
		if strings.Contains(body, "<script>alert") || strings.Count(body, "</script>") != strings.Count(body, "<script") {
			t.Errorf("%s: spec URL escaped its context:\n%s", path, body)
		}
	}
}

// TestHandler_Prefix: behind a proxy serving the venue under a path, the
// pages name their scripts and stylesheet under it, while the handler
// serves them where the proxy hands them on, without it.
func TestHandler_Prefix(t *testing.T) {
	h := docsui.Handler("/venue", "/venue/openapi")
	for page, want := range map[string][]string{
		"/swagger": {`href="/venue/swagger/swagger-ui.css?v=`, `src="/venue/swagger/swagger-ui-bundle.js?v=`, `url: "/venue/openapi"`},
		"/redoc":   {`src="/venue/redoc/redoc.standalone.js?v=`, `spec-url="/venue/openapi"`},
	} {
		body := get(h, http.MethodGet, page).Body.String()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s does not hold %s:\n%s", page, w, body)
			}
		}
	}
	if w := get(h, http.MethodGet, "/swagger/swagger-ui.css"); w.Code != http.StatusOK {
		t.Fatalf("stylesheet: %d", w.Code)
	}
}

func TestHandler_NotFound(t *testing.T) {
	h := docsui.Handler("", "/openapi")
	for _, tc := range []struct{ name, method, path string }{
		{"trailing slash", http.MethodGet, "/swagger/"},
		{"unknown swagger file", http.MethodGet, "/swagger/index.html"},
		{"source map", http.MethodGet, "/swagger/swagger-ui-bundle.js.map"},
		{"unknown redoc file", http.MethodGet, "/redoc/nope.js"},
		{"wrong method", http.MethodPost, "/swagger"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(h, tc.method, tc.path)
			if w.Code != http.StatusNotFound {
				t.Errorf("status %d, want 404", w.Code)
			}
			if got := w.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			want := `{"error":"Endpoint ` + tc.method + " " + tc.path + ` not found"}`
			if got := w.Body.String(); got != want {
				t.Errorf("body %s, want %s", got, want)
			}
		})
	}
}

func TestHandler_Gzip(t *testing.T) {
	h := docsui.Handler("", "/openapi")
	plain := get(h, http.MethodGet, "/swagger/swagger-ui-bundle.js")
	for _, tc := range []struct {
		name, acceptEncoding string
		wantGzip             bool
	}{
		{"no header", "", false},
		{"gzip", "gzip, deflate, br", true},
		{"any", "*", true},
		{"refused", "gzip;q=0, br", false},
		{"explicit beats any", "*;q=0, gzip;q=0.5", true},
		{"other only", "br", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the first gzip request races the others to compress
			w := get(h, http.MethodGet, "/swagger/swagger-ui-bundle.js", "Accept-Encoding", tc.acceptEncoding)
			gotGzip := w.Header().Get("Content-Encoding") == "gzip"
			if gotGzip != tc.wantGzip {
				t.Fatalf("gzip %v, want %v", gotGzip, tc.wantGzip)
			}
			if w.Header().Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary %q", w.Header().Get("Vary"))
			}
			if !gotGzip {
				return
			}
			if w.Header().Get("ETag") == plain.Header().Get("ETag") {
				t.Error("gzip and identity share an ETag")
			}
			zr, err := gzip.NewReader(w.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := io.ReadAll(zr); !bytes.Equal(got, plain.Body.Bytes()) {
				t.Error("gunzipped body differs from the identity body")
			}
		})
	}
}

func TestHandler_Revalidation(t *testing.T) {
	h := docsui.Handler("", "/openapi")
	for _, path := range []string{"/swagger", "/redoc/redoc.standalone.js"} {
		t.Run(path, func(t *testing.T) {
			etag := get(h, http.MethodGet, path).Header().Get("ETag")
			if w := get(h, http.MethodGet, path, "If-None-Match", etag); w.Code != http.StatusNotModified {
				t.Errorf("If-None-Match: status %d, want 304", w.Code)
			}
			if w := get(h, http.MethodHead, path); w.Code != http.StatusOK || w.Body.Len() != 0 {
				t.Errorf("HEAD: status %d, %d body bytes", w.Code, w.Body.Len())
			}
		})
	}
}

// TestAssets_MatchREADME keeps the embedded files identical to the npm
// releases whose checksums assets/README.md records.
func TestAssets_MatchREADME(t *testing.T) {
	readme, err := os.ReadFile("assets/README.md")
	if err != nil {
		t.Fatal(err)
	}
	sums := regexp.MustCompile(`(?m)^([0-9a-f]{64})  (\S+)$`).FindAllStringSubmatch(string(readme), -1)
	if len(sums) != 8 {
		t.Fatalf("README lists %d checksums, want 8", len(sums))
	}
	for _, m := range sums {
		t.Run(m[2], func(t *testing.T) {
			body, err := os.ReadFile("assets/" + m[2])
			if err != nil {
				t.Fatal(err)
			}
			if got := sha256.Sum256(body); hex.EncodeToString(got[:]) != m[1] {
				t.Errorf("sha256 %x, README says %s", got, m[1])
			}
		})
	}
}

// doc wraps schema as the only component schema of a minimal 3.0 document.
func doc(schema string) string {
	return `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"S":` + schema + `}}}`
}

func TestFixOpenAPI30(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"const becomes enum",
			doc(`{"type":"string","const":"status"}`),
			doc(`{"type":"string","enum":["status"]}`)},
		{"const deep in properties items allOf",
			doc(`{"properties":{"a":{"items":{"allOf":[{"properties":{"b":{"const":1}}}]}}}}`),
			doc(`{"properties":{"a":{"items":{"allOf":[{"properties":{"b":{"enum":[1]}}}]}}}}`)},
		{"const in an sse response",
			`{"openapi":"3.0.3","paths":{"/e":{"get":{"responses":{"200":{"content":{"text/event-stream":{"schema":{"type":"array","items":{"oneOf":[{"properties":{"event":{"const":"status"}}}]}}}}}}}}}}`,
			`{"openapi":"3.0.3","paths":{"/e":{"get":{"responses":{"200":{"content":{"text/event-stream":{"schema":{"type":"array","items":{"oneOf":[{"properties":{"event":{"enum":["status"]}}}]}}}}}}}}}}`},
		{"nullable type list",
			doc(`{"properties":{"e":{"type":["string","null"]},"n":{"type":["null","integer"]}}}`),
			doc(`{"properties":{"e":{"type":"string","nullable":true},"n":{"type":"integer","nullable":true}}}`)},
		{"null only",
			doc(`{"type":["null"]}`),
			doc(`{"nullable":true}`)},
		{"empty type left by huma",
			doc(`{"type":"","nullable":true}`),
			doc(`{"nullable":true}`)},
		{"several types",
			doc(`{"type":["string","integer"]}`),
			doc(`{"anyOf":[{"type":"string"},{"type":"integer"}]}`)},
		{"examples list",
			doc(`{"properties":{"a":{"type":"integer","examples":[1,2]},"b":{"example":3,"examples":[4]}}}`),
			doc(`{"properties":{"a":{"type":"integer","example":1},"b":{"example":3}}}`)},
		{"numeric exclusive bounds",
			doc(`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5}`),
			doc(`{"type":"number","minimum":0,"exclusiveMinimum":true,"maximum":1.5,"exclusiveMaximum":true}`)},
		{"unknown keywords become extensions",
			doc(`{"$schema":"x","contentMediaType":"application/octet-stream","format":"binary","patternDescription":"p","dependentRequired":{"a":["b"]},"x-keep":1}`),
			doc(`{"x-$schema":"x","x-contentMediaType":"application/octet-stream","format":"binary","x-patternDescription":"p","x-dependentRequired":{"a":["b"]},"x-keep":1}`)},
		{"property names that look like keywords",
			doc(`{"properties":{"const":{"type":"string"},"$schema":{"type":"string"},"examples":{"type":"array","items":{}}}}`),
			doc(`{"properties":{"const":{"type":"string"},"$schema":{"type":"string"},"examples":{"type":"array","items":{}}}}`)},
		{"example values untouched",
			doc(`{"example":{"const":1,"type":["a","null"]},"default":{"examples":[1]},"enum":[{"const":2}]}`),
			doc(`{"example":{"const":1,"type":["a","null"]},"default":{"examples":[1]},"enum":[{"const":2}]}`)},
		{"root and components 3.1 fields",
			`{"openapi":"3.0.3","paths":{},"webhooks":{},"jsonSchemaDialect":"d","components":{"pathItems":{}}}`,
			`{"openapi":"3.0.3","paths":{},"x-webhooks":{},"x-jsonSchemaDialect":"d","components":{"x-pathItems":{}}}`},
		{"large numbers kept exactly",
			doc(`{"type":"integer","maximum":9007199254740993}`),
			doc(`{"type":"integer","maximum":9007199254740993}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := docsui.FixOpenAPI30([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if want := normalize(t, tc.want); string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestFixOpenAPI30_Errors(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"not json", `{`},
		{"openapi 3.1", `{"openapi":"3.1.0"}`},
		{"swagger 2", `{"swagger":"2.0"}`},
		{"trailing data", `{"openapi":"3.0.3"} {}`},
		{"array", `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := docsui.FixOpenAPI30([]byte(tc.in)); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestFixOpenAPI30_SampleAPI pins the fixed document of a Huma API in
// testdata, where tools/webcheck validates and renders it with real clients.
func TestFixOpenAPI30_SampleAPI(t *testing.T) {
	fixed := mustSampleAPI(t)
	if again := mustSampleAPI(t); !bytes.Equal(fixed, again) {
		t.Fatal("output differs between two runs")
	}
	if bytes.Contains(fixed, []byte(`"const"`)) {
		t.Error(`fixed document still has "const"`)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, fixed, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if *update {
		if err := os.WriteFile(samplePath, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(golden, pretty.Bytes()) {
		t.Errorf("%s is stale; run go test ./api/rest/docsui -update and review the diff", samplePath)
	}
}

// normalize gives the bytes FixOpenAPI30 would produce for an already fixed
// document: sorted keys, compact, numbers unchanged.
func normalize(t *testing.T, s string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
