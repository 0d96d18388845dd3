package native

import (
	"embed"

	"github.com/gridvenue/venue/runtime"
)

//go:embed catalog
var catalogFS embed.FS

// Entries returns the catalog entries of the native operations, under v/ops.
func Entries() ([]runtime.CatalogEntry, error) {
	return runtime.EntriesFromFS(catalogFS, "catalog", "v/ops")
}

// Executors returns the executors of the native families, by adapter family.
func Executors() map[string]runtime.Executor {
	return map[string]runtime.Executor{
		"grid": runtime.OpFuncs{"jobResult": jobResult, "jobStatus": jobStatus},
		"ucan": runtime.OpFuncs{"issue": ucanIssue, "verify": ucanVerify, "revoke": ucanRevoke},
	}
}
