package venue

import "strings"

// Abilities the venue checks. A UCAN grant names one of these (or a prefix
// of one, which covers everything below it: "crud" covers "crud/write"), or
// "*" for any.
const (
	AbilityRead        = "crud/read"    // read a namespace
	AbilityWrite       = "crud/write"   // write values, secrets
	AbilityDelete      = "crud/delete"  // delete values, jobs
	AbilityInvoke      = "invoke"       // start jobs in a caller's j/
	AbilityAgentCreate = "agent/create" // create agents in a caller's g/
	AbilityAssetStore  = "asset/store"  // register assets and upload content
	AbilityMCPManage   = "mcp/manage"   // venue-scope MCP bridges (resource: the venue DID)
	AbilityRevoke      = "ucan/revoke"  // revoke the UCANs a DID issued (resource: that DID)
)

// Capability is one grant of authority: ability Can on resource With, a
// lattice path qualified by its owner's DID ("did:key:z6Mk.../w/notes"),
// or a DID alone for everything it owns.
type Capability struct {
	With string `json:"with"`
	Can  string `json:"can"`
}

// Covers reports whether c grants ability can on resource with: c.With is
// with or a parent of it at a '/' boundary, and c.Can is can, "*", or a
// parent of it at a '/' boundary. A grant never widens past its own text.
func (c Capability) Covers(with, can string) bool {
	return underPath(with, c.With) && (c.Can == "*" || underPath(can, c.Can))
}

// CoversCapability reports whether c grants everything d grants.
func (c Capability) CoversCapability(d Capability) bool {
	if d.Can == "*" && c.Can != "*" {
		return false
	}
	return c.Covers(d.With, d.Can)
}

// Owner returns the DID that owns a resource: the part of with before its
// first '/' (a DID has no '/').
func Owner(with string) string {
	did, _, _ := strings.Cut(with, "/")
	return did
}

// underPath reports whether p is parent or p itself, at a '/' boundary.
func underPath(p, parent string) bool {
	if parent == "" || !strings.HasPrefix(p, parent) {
		return false
	}
	return len(p) == len(parent) || p[len(parent)] == '/' || strings.HasSuffix(parent, "/")
}
