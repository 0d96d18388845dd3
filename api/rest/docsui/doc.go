// Package docsui serves the venue's API documentation pages, Swagger UI at
// /swagger and ReDoc at /redoc, from assets compiled into the binary, and
// repairs the OpenAPI 3.0 document those pages display.
//
// Huma's own docs renderers load their scripts from a public CDN and render a
// blank page on a venue without internet access, and Huma has no ReDoc
// renderer at all; hence this package. The scripts are the unmodified npm
// releases listed in assets/README.md.
//
// Handler serves fixed absolute paths, so mount it once per page and once per
// asset folder on the server's mux:
//
//	h := docsui.Handler("", "/openapi")
//	for _, p := range []string{"/swagger", "/swagger/", "/redoc", "/redoc/"} {
//		mux.Handle(p, h)
//	}
//
// FixOpenAPI30 post-processes the output of Huma's OpenAPI.Downgrade, which
// leaves several JSON Schema 2020-12 keywords (notably the "const" that
// huma/v2/sse emits) that strict OpenAPI 3.0 validators and the UIs reject.
package docsui
