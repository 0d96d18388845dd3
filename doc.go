// Package venue holds the nouns of a grid venue: jobs and their statuses,
// assets, catalog operations, operation references, lattice paths, secret
// references, callers and the one coded error type every layer returns.
//
// The package imports only the standard library, so every other package can
// depend on it without pulling in a database driver, an HTTP framework or a
// WebAssembly runtime. A test asserts that.
package venue
