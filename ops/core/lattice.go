package core

import "github.com/gridvenue/venue/wasm/guest"

// The lattice operations are one host call each, so they forward their
// input to the host unread (guest.RegisterForward): the host checks it in the
// reference venue's words ('path' is required, 'from' is required) and
// passes its result through unchanged, fields it adds included. Decoding
// and re-encoding the input here would check nothing the host does not,
// and cost the guest more than the call itself (docs/RATIONALE.md).

func init() {
	for name, fn := range map[string]string{
		"core:read":   "lattice.read",
		"core:write":  "lattice.write",
		"core:delete": "lattice.delete",
		"core:append": "lattice.append",
		"core:copy":   "lattice.copy",
		"core:list":   "lattice.list",
		"core:slice":  "lattice.slice",
	} {
		guest.RegisterForward(name, fn)
	}
	guest.Register("core:inspect", inspect)
}
