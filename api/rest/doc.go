// Package rest is the venue's REST door: the /api/v1 endpoints of the spec on
// Huma v2 over net/http, the documentation endpoints (/openapi, /swagger,
// /redoc, /llms.txt) and did:web discovery. Handlers decode, call the engine
// and shape the response; errors become {"error": "..."} with the status
// statusOf gives their code, in one place (errors.go).
package rest
