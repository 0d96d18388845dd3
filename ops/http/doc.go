// Package http is the http family of built-in operations (http:get,
// http:post): outbound requests made by the host's http.request, which
// resolves secret references (bearerSecret, secretHeaders, {s/NAME} in the
// URL), applies the venue's SSRF policy and masks every resolved value out
// of the job's records. The guest never sees a secret. Their catalog
// entries sit in catalog/.
package http
