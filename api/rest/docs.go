package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/gridvenue/venue/api/rest/docsui"
)

func (s *Server) registerDocs() {
	s.mux.HandleFunc("GET /openapi", s.serveOpenAPI)
	s.mux.HandleFunc("GET /openapi.json", s.serveOpenAPI)
	prefix := basePath(s.e.Identity().BaseURL)
	ui := docsui.Handler(prefix, prefix+"/openapi")
	for _, p := range []string{"GET /swagger", "GET /swagger/", "GET /redoc", "GET /redoc/"} {
		s.mux.Handle(p, ui)
	}
	s.mux.HandleFunc("GET /llms.txt", s.serveLLMs)
}

// OpenAPI returns the OpenAPI 3.0 document served at /openapi.
func (s *Server) OpenAPI() []byte { return s.openapi }

// buildOpenAPI turns Huma's 3.1 document into the 3.0 one the spec asks
// for. Huma lists 422 on every operation with a body, but this venue
// answers schema violations with 400, so 422 goes.
func (s *Server) buildOpenAPI() ([]byte, error) {
	for _, item := range s.api.OpenAPI().Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Delete} {
			if op != nil {
				delete(op.Responses, "422")
				// A bearer token that is not valid (malformed, expired,
				// for another audience) is refused on every route, as is
				// an anonymous caller the configuration lets do less.
				if _, ok := op.Responses["401"]; !ok && op.Responses["default"] != nil {
					op.Responses["401"] = errorResponse(s.api, "The bearer token is invalid or expired, or anonymous callers may not do this here")
				}
			}
		}
	}
	doc, err := s.api.OpenAPI().Downgrade()
	if err != nil {
		return nil, fmt.Errorf("downgrade OpenAPI: %w", err)
	}
	return docsui.FixOpenAPI30(doc)
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Write(s.openapi)
}

// serveLLMs writes /llms.txt: what the venue is and how to call it, with
// every catalog operation and its input fields, from the live catalog.
func (s *Server) serveLLMs(w http.ResponseWriter, r *http.Request) {
	id := s.e.Identity()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", s.e.Name())
	fmt.Fprintf(&b, "> A grid venue (%s). It runs self-describing operations and keeps a job record for every invocation. "+
		"REST under %s/api/v1, MCP at %s/mcp, OpenAPI 3.0 at %s/openapi.\n\n", id.DID, id.BaseURL, id.BaseURL, id.BaseURL)
	fmt.Fprintf(&b, "Invoke an operation and wait for its result:\n\n```sh\ncurl -s -X POST %s/api/v1/invoke -H 'Content-Type: application/json' \\\n  -d '{\"operation\": \"v/ops/<adapter>/<op>\", \"input\": {...}, \"wait\": true}'\n```\n\n", id.BaseURL)
	b.WriteString("The response is the job record: `status` (PENDING, STARTED, COMPLETE, FAILED, ...), `output` when COMPLETE, `error` when FAILED. " +
		"Use the catalog path (`v/ops/...`) as `operation`; the display form `adapter:op` is not accepted. " +
		"`POST /api/v1/run` with the same body answers with the bare output. Errors are `{\"error\": \"...\"}`.\n\n")
	b.WriteString("## Operations\n\n")
	for _, op := range s.e.Operations() {
		fmt.Fprintf(&b, "- [%s](%s/api/v1/operations/%s): %s%s%s\n", op.Name, id.BaseURL, op.Path, oneLine(op.Description), inputSummary(op.Input), keywordSummary(op.Keywords))
	}
	b.WriteString("\n## Docs\n\n")
	fmt.Fprintf(&b, "- [OpenAPI 3.0](%s/openapi): every REST endpoint\n- [Swagger UI](%s/swagger)\n- [ReDoc](%s/redoc)\n- [Catalog](%s/api/v1/operations): operations with input and output JSON Schemas\n", id.BaseURL, id.BaseURL, id.BaseURL, id.BaseURL)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(b.Bytes())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keywordSummary lists an operation's keywords, which a reader searching
// the file for a word may find it by.
func keywordSummary(kw []string) string {
	if len(kw) == 0 {
		return ""
	}
	return " Keywords: " + oneLine(strings.Join(kw, ", ")) + "."
}

// inputSummary lists an input schema's fields, required ones marked.
func inputSummary(schema json.RawMessage) string {
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &sch) != nil || len(sch.Properties) == 0 {
		return ""
	}
	names := make([]string, 0, len(sch.Properties))
	for n := range sch.Properties {
		if slices.Contains(sch.Required, n) {
			n += " (required)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return " Input: " + strings.Join(names, ", ") + "."
}

// basePath is the path of the public base URL ("" at the root): behind a
// proxy that serves the venue at https://example.com/venue, pages must
// name /venue/openapi, not /openapi.
func basePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.EscapedPath(), "/")
}
