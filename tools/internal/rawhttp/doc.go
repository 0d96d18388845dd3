// Package rawhttp reads HTTP/1.1 responses by hand for the load generators
// in tools/ (bench, mcpbench): like wrk, they read the least they can, so
// that the machine's cores go to the servers they measure.
package rawhttp
