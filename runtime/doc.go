// Package runtime is the venue's engine: it resolves operation references,
// checks inputs against schemas, runs operations through executors under a
// bounded pool, keeps every job's record (group-committed to the store),
// answers lattice reads, keeps assets and seals secrets.
//
// Every door (REST, MCP, A2A) calls the same Engine methods, so
// authorisation, secret resolution, masking and recording happen once, here.
// The package never imports the wasm, sql or api packages: it defines the
// Store and Executor interfaces it consumes and is handed implementations.
package runtime
