// Command builtin is the venue's built-in Wasm operations as one reactor
// module: every family registers its operations when imported, and the
// guest SDK exports the reactor ABI of wasm/doc.go. `make ops` builds it
// into ops/build/builtin.wasm:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags='-s -w' -o ops/build/builtin.wasm ./ops/builtin
//
// One module rather than one per family: the Go runtime is most of every
// module's 3 MB, so families share it, and one compiled module and one
// instance pool serve them all.
package main

import (
	_ "github.com/gridvenue/venue/ops/core"
	_ "github.com/gridvenue/venue/ops/http"
	_ "github.com/gridvenue/venue/ops/json"
	_ "github.com/gridvenue/venue/ops/schema"
	_ "github.com/gridvenue/venue/ops/secret"
)

// main never runs: a reactor (-buildmode=c-shared) is initialised by
// _initialize and entered through its exports.
func main() {}
