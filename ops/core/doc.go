// Package core is the core family of built-in operations (core:read,
// core:write, core:list, core:slice, core:inspect, core:append, core:delete,
// core:copy): the lattice as the job's caller sees it, reached through the
// host's lattice.* functions, which check the caller's capabilities. The
// operations register themselves with the guest SDK when the package is
// imported; their catalog entries sit in catalog/.
package core
