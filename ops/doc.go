// Package ops holds the venue's built-in Wasm operations: their guest
// sources, one folder per family (core, schema, json, http, secret), each
// with its catalog entries beside it in <family>/catalog/<op>.json, and the
// module they are all compiled into, ops/builtin. This package embeds the
// built module and the catalog entries for the host.
//
// The module is a build output, not a commit: `make ops` builds it (GOOS=wasip1
// GOARCH=wasm go build -buildmode=c-shared ./ops/builtin) into
// build/builtin.wasm, and this package does not compile until it has.
//
// The family packages compile on every GOOS (only the guest SDK's ABI glue
// is wasip1-only), so `go vet ./...` checks them natively.
package ops
