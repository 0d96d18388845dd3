// Package native holds the venue's operations that act on the venue itself
// and so run as Go inside the engine rather than in the Wasm sandbox: the
// grid family (waiting on and reading jobs) and the ucan family (issuing
// UCANs signed by the venue, and verifying them). Their catalog entries sit
// beside the code in catalog/.
package native
