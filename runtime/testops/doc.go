// Package testops holds operations for testing the engine itself: one that
// echoes, one that sleeps, one that fails, one that never ends, one that asks
// its client for input, one that reveals a secret (to prove masking), and
// one whose output need not be an object. They are served under
// v/test/ops/..., never under v/ops, so they stay out of the public catalog,
// MCP tools (unless the venue is told to offer them) and llms.txt.
package testops
