// Package preview renders a lattice value as core:inspect shows it: an
// annotated JSON5-style text that keeps the value's shape and samples its
// contents within a byte budget.
//
// Two doors share it so that they give the same text for the same lattice:
// the core:inspect operation, which runs in the Wasm sandbox and reads the
// lattice through host calls, and GET /api/v1/values/inspect, which reads
// it through the engine directly. Each supplies a Reader. The guest module
// is built with GOOS=wasip1, so the package uses the standard library and
// the ops family's own JSON reader (ops/internal/jsonv) only.
package preview
