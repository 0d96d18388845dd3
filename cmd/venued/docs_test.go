package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestREST_Operations(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	var ops []struct {
		Name, Path, Description, Adapter, Asset string
		Keywords                                []string
		Input                                   map[string]any
	}
	c.do(t, "GET", "/api/v1/operations", nil).json(t, &ops)
	if len(ops) == 0 {
		t.Fatal("empty catalog")
	}
	for _, op := range ops {
		if !strings.Contains(op.Name, ":") || !strings.HasPrefix(op.Path, "v/ops/"+op.Adapter+"/") || op.Description == "" || len(op.Keywords) == 0 || op.Input == nil || len(op.Asset) != 66 {
			t.Fatalf("entry %+v lacks a spec field", op)
		}
	}
	for _, name := range []string{"v/ops/secret/set", "v%2Fops%2Fsecret%2Fset", "secret:set"} {
		var got struct{ Name, Path string }
		r := c.do(t, "GET", "/api/v1/operations/"+name, nil)
		r.json(t, &got)
		if r.status != 200 || got.Path != "v/ops/secret/set" {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
}

func TestREST_DocsAndDiscovery(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	t.Run("openapi is a 3.0 document", func(t *testing.T) {
		var doc struct {
			OpenAPI string         `json:"openapi"`
			Paths   map[string]any `json:"paths"`
		}
		r := c.do(t, "GET", "/openapi", nil)
		r.json(t, &doc)
		if !strings.HasPrefix(doc.OpenAPI, "3.0") || doc.Paths["/api/v1/invoke"] == nil || doc.Paths["/api/v1/jobs/{id}/sse"] == nil {
			t.Fatalf("openapi %q with %d paths", doc.OpenAPI, len(doc.Paths))
		}
		if bytes.Contains(r.body, []byte(`"const"`)) || bytes.Contains(r.body, []byte(`"422"`)) {
			t.Fatal("the 3.0 document has const or a 422 response")
		}
	})
	for _, p := range []string{"/swagger", "/redoc"} {
		t.Run(p+" is a page with embedded assets", func(t *testing.T) {
			r := c.do(t, "GET", p, nil)
			if r.status != 200 || !strings.Contains(r.header.Get("Content-Type"), "text/html") || bytes.Contains(r.body, []byte("https://")) {
				t.Fatalf("%d %s", r.status, r.header.Get("Content-Type"))
			}
		})
	}
	t.Run("llms.txt lists the live catalog", func(t *testing.T) {
		r := c.do(t, "GET", "/llms.txt", nil)
		s := string(r.body)
		if r.status != 200 || !strings.HasPrefix(s, "# Venue") || !strings.Contains(s, "secret:set") || !strings.Contains(s, "Keywords: lattice, read, get, load.") || strings.Contains(s, "v/test/ops") {
			t.Fatalf("%d %s", r.status, s)
		}
	})
	t.Run("the venue DID document names the API", func(t *testing.T) {
		var doc struct {
			ID      string
			Service []struct{ Type, ServiceEndpoint string }
		}
		r := c.do(t, "GET", "/.well-known/did.json", nil)
		r.json(t, &doc)
		if doc.ID != "did:web:"+strings.ReplaceAll(m.Addr, ":", "%3A") || len(doc.Service) != 1 ||
			doc.Service[0].Type != "Covia.API.v1" || doc.Service[0].ServiceEndpoint != "http://"+m.Addr+"/api/v1" {
			t.Fatalf("%s", r.body)
		}
	})
	t.Run("user DID documents exist for users only", func(t *testing.T) {
		if r := c.do(t, "GET", "/u/public/did.json", nil); r.status != 404 {
			t.Fatalf("before any activity: %d", r.status)
		}
		c.do(t, "PUT", "/api/v1/secrets/K", `"v-value"`)
		if r := c.do(t, "GET", "/u/public/did.json", nil); r.status != 200 || !strings.Contains(string(r.body), ":u:public") {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if r := c.do(t, "GET", "/u/nobody/did.json", nil); r.status != 404 {
			t.Fatalf("%d", r.status)
		}
		want := "Invalid user id: use 1 to 128 letters, digits, '_', '-' or '.', starting with a letter or digit"
		if r := c.do(t, "GET", "/u/"+strings.Repeat("u", 129)+"/did.json", nil); r.status != 400 || r.errorText(t) != want {
			t.Fatalf("a user id too long: %d %s", r.status, r.body)
		}
	})
	t.Run("status reports identity and counts", func(t *testing.T) {
		var st struct {
			DID, URL, Version string
			Stats             struct{ Assets, Users, Ops int }
		}
		c.do(t, "GET", "/api/v1/status", nil).json(t, &st)
		if st.DID == "" || st.URL != "http://"+m.Addr || st.Version < "0.5" || st.Stats.Ops == 0 || st.Stats.Users != 1 {
			t.Fatalf("%+v", st)
		}
	})
}

// TestOpenAPIGolden pins the OpenAPI document: an API change shows up as a
// diff of testdata/openapi.json, rewritten with -update (make openapi).
func TestOpenAPIGolden(t *testing.T) {
	var got bytes.Buffer
	if err := printOpenAPI(&got); err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "openapi.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run make openapi)", err)
	}
	if !bytes.Equal(want, pretty.Bytes()) {
		t.Fatal("the OpenAPI document changed; if that was intended, run make openapi and commit testdata/openapi.json")
	}
}

// TestREST_OpenAPIListsErrorStatuses: the statuses the spec leaves out but
// the venue answers (a 409 for deleting a running job) are documented, each
// with the {"error"} body.
func TestREST_OpenAPIListsErrorStatuses(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					}
				}
			}
		}
	}
	var b bytes.Buffer
	if err := printOpenAPI(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path, status string }{
		{"put", "/api/v1/jobs/{id}/delete", "404"},
		{"put", "/api/v1/jobs/{id}/delete", "409"},
		{"put", "/api/v1/jobs/{id}/pause", "409"},
		{"put", "/api/v1/jobs/{id}/resume", "409"},
		{"put", "/api/v1/jobs/{id}/cancel", "404"},
		{"get", "/api/v1/jobs/{id}", "404"},
		{"post", "/api/v1/jobs/{id}", "409"},
		{"get", "/api/v1/assets/{id}", "404"},
		{"put", "/api/v1/secrets/{name}", "400"},
		{"delete", "/api/v1/secrets/{name}", "404"},
		// A malformed or repeated offset or limit, a bad name, a body over
		// a secret's limit, and another owner's path.
		{"get", "/api/v1/jobs", "400"},
		{"get", "/api/v1/assets", "400"},
		{"delete", "/api/v1/secrets/{name}", "400"},
		{"put", "/api/v1/secrets/{name}", "413"},
		{"get", "/api/v1/values/read", "403"},
		{"get", "/api/v1/values/list", "403"},
		{"get", "/api/v1/values/slice", "403"},
		{"get", "/api/v1/values/count", "403"},
		{"get", "/api/v1/values/aggregate", "403"},
		{"get", "/api/v1/values/inspect", "403"},
	} {
		res, ok := doc.Paths[tc.path][tc.method].Responses[tc.status]
		if !ok || !strings.HasSuffix(res.Content["application/json"].Schema.Ref, "/ErrorBody") {
			t.Errorf("%s %s does not document %s with the error body", tc.method, tc.path, tc.status)
		}
	}
	// A bad bearer token is refused with 401 on every route.
	for path, item := range doc.Paths {
		for method, op := range item {
			if _, ok := op.Responses["401"]; !ok {
				t.Errorf("%s %s does not document 401", method, path)
			}
		}
	}
}

// TestREST_OpenAPITypesWhatIsKnown: values whose shape the venue knows are
// typed in the document, so that a generated client does not read them as
// unknown: a job record's prev chain, asset metadata.
func TestREST_OpenAPITypesWhatIsKnown(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct{ Schema map[string]any }
			}
		}
		Components struct {
			Schemas map[string]struct{ Properties map[string]map[string]any }
		}
	}
	var b bytes.Buffer
	if err := printOpenAPI(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if ref := doc.Components.Schemas["JobRecord"].Properties["prev"]["$ref"]; ref != "#/components/schemas/JobSnapshot" {
		t.Errorf("JobRecord.prev is %v, want a reference to JobSnapshot", doc.Components.Schemas["JobRecord"].Properties["prev"])
	}
	if ref := doc.Components.Schemas["JobSnapshot"].Properties["prev"]["$ref"]; ref != "#/components/schemas/JobSnapshot" {
		t.Errorf("JobSnapshot.prev is %v, want a reference to JobSnapshot", doc.Components.Schemas["JobSnapshot"].Properties["prev"])
	}
	if s := doc.Paths["/api/v1/assets/{id}"]["get"].Responses["200"].Content["application/json"].Schema; s["type"] != "object" {
		t.Errorf("GET /api/v1/assets/{id} 200 is %v, want an object", s)
	}
	// The venue sends [] for an empty list, never null: an array marked
	// nullable would cost each generated client a pointer or a null check.
	var whole any
	if err := json.Unmarshal(b.Bytes(), &whole); err != nil {
		t.Fatal(err)
	}
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "array" && v["nullable"] == true {
				t.Errorf("%s is a nullable array", at)
			}
			for k, e := range v {
				walk(at+"/"+k, e)
			}
		case []any:
			for i, e := range v {
				walk(at+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", whole)
}

// TestREST_OpenAPIDeclaresWhatIsAnswered sends requests whose answers a
// client generated from /openapi must find declared: each status (or a
// default), its media type and the headers it carries. The routes served by
// plain handlers (invoke, the job stream, asset content) have their entries
// written by hand, which once left out the 401 of a bad token, the 415 of a
// compressed body and the asset's own media type.
func TestREST_OpenAPIDeclaresWhatIsAnswered(t *testing.T) {
	m := MustRunMain(t, "")
	c := newClient(m)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any
				Content map[string]any
			}
		}
	}
	c.do(t, "GET", "/openapi", nil).json(t, &doc)

	sum := sha256.Sum256([]byte("hello"))
	var asset string
	c.do(t, "POST", "/api/v1/assets", `{"content": {"contentType": "text/plain", "sha256": "`+hex.EncodeToString(sum[:])+`"}}`).json(t, &asset)
	if r := c.do(t, "PUT", "/api/v1/assets/"+asset+"/content", "hello"); r.status != 200 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	var job struct{ ID string }
	c.do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {}, "wait": true}`).json(t, &job)
	bad := []string{"Authorization", "Bearer not-a-token"}
	content := "/api/v1/assets/" + asset + "/content"
	for _, tc := range []struct {
		method, path, route, body string
		header                    []string
		status                    int
		headers                   []string // sent, so declared
	}{
		{"GET", content, "/api/v1/assets/{id}/content", "", nil, 200, []string{"ETag", "Accept-Ranges", "Content-Disposition"}},
		{"GET", content, "/api/v1/assets/{id}/content", "", []string{"Range", "bytes=1-2"}, 206, []string{"ETag", "Content-Range", "Content-Disposition"}},
		{"GET", "/api/v1/jobs/" + job.ID + "/sse", "/api/v1/jobs/{id}/sse", "", nil, 200, []string{"Cache-Control"}},
		{"GET", "/api/v1/status", "/api/v1/status", "", bad, 401, nil},
		{"GET", "/api/v1/jobs?limit=-1", "/api/v1/jobs", "", nil, 400, nil},
		{"GET", "/api/v1/assets?offset=x", "/api/v1/assets", "", nil, 400, nil},
		{"DELETE", "/api/v1/secrets/bad%20name", "/api/v1/secrets/{name}", "", nil, 400, nil},
		{"GET", "/api/v1/values/read?path=did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH/w/x", "/api/v1/values/read", "", nil, 401, nil}, // 403 with a token
		{"GET", content, "/api/v1/assets/{id}/content", "", []string{"Range", "bytes=99-"}, 416, []string{"ETag", "Accept-Ranges", "Content-Range"}},
		{"GET", content, "/api/v1/assets/{id}/content", "", bad, 401, nil},
		{"PUT", content, "/api/v1/assets/{id}/content", "hello", bad, 401, nil},
		{"PUT", content, "/api/v1/assets/{id}/content", "hello", []string{"Content-Encoding", "gzip"}, 415, nil},
		{"POST", "/api/v1/invoke", "/api/v1/invoke", `{"operation": "v/test/ops/echo"}`, []string{"Content-Encoding", "gzip"}, 415, nil},
		{"GET", "/api/v1/jobs/" + job.ID + "/sse", "/api/v1/jobs/{id}/sse", "", bad, 401, nil},
		{"POST", "/api/v1/run", "/api/v1/run", `{"operation": "v/test/ops/ask", "input": {"question": "?"}}`, nil, 409, nil},
		// A job that failed on something it did not find.
		{"POST", "/api/v1/run", "/api/v1/run", `{"operation": "v/ops/grid/job-status", "input": {"id": "0x00000000000000000000000000000001"}}`, nil, 404, nil},
	} {
		var body any
		if tc.body != "" {
			body = tc.body
		}
		r := c.do(t, tc.method, tc.path, body, tc.header...)
		if r.status != tc.status {
			t.Fatalf("%s %s %v: %d %s, want %d", tc.method, tc.path, tc.header, r.status, r.body, tc.status)
		}
		responses := doc.Paths[tc.route][strings.ToLower(tc.method)].Responses
		res, ok := responses[strconv.Itoa(r.status)]
		if !ok && r.status != 415 { // a compressed body's 415 is left to the default
			t.Errorf("%s %s answers %d, which it does not declare (only a default)", tc.method, tc.route, r.status)
		}
		if !ok {
			if res, ok = responses["default"]; !ok {
				t.Errorf("%s %s declares neither %d nor a default", tc.method, tc.route, r.status)
				continue
			}
		}
		media, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
		if _, ok := res.Content[media]; !ok && res.Content["*/*"] == nil {
			t.Errorf("%s %s %d: Content-Type %s is not declared (%v)", tc.method, tc.route, r.status, media, res.Content)
		}
		for _, h := range tc.headers {
			if r.header.Get(h) == "" {
				t.Errorf("%s %s %d: no %s header", tc.method, tc.route, r.status, h)
			} else if _, ok := res.Headers[h]; !ok {
				t.Errorf("%s %s %d: header %s is sent but not declared", tc.method, tc.route, r.status, h)
			}
		}
	}
}
