package ops

import (
	"embed"
	"io/fs"
	"path"

	"github.com/gridvenue/venue/runtime"
)

// module is the built-in operations compiled into one reactor module.
// `make ops` builds it.
//
//go:embed build/builtin.wasm
var module []byte

//go:embed */catalog/*.json
var catalogFS embed.FS

// Module returns the Wasm module that runs every built-in operation (the
// reactor ABI of wasm/doc.go; venue_run takes the entry's
// operation.adapter, e.g. "core:read"). The caller must not modify it.
func Module() []byte { return module }

// Entries returns the catalog entries of the built-in operations: the file
// <family>/catalog/<op>.json becomes the entry at v/ops/<family>/<op>.
func Entries() ([]runtime.CatalogEntry, error) {
	dirs, err := fs.Glob(catalogFS, "*/catalog")
	if err != nil {
		return nil, err
	}
	var all []runtime.CatalogEntry
	for _, dir := range dirs {
		entries, err := runtime.EntriesFromFS(catalogFS, dir, "v/ops/"+path.Dir(dir))
		if err != nil {
			return nil, err
		}
		all = append(all, entries...)
	}
	return all, nil
}
