// Package testops holds operations for testing the engine itself: one that
// echoes, one that sleeps, one that fails, one that never ends, one that asks
// its client for input, and one that reveals a secret (to prove masking).
// They are served under v/test/ops/..., never under v/ops, so they stay out
// of the public catalog, MCP tools and llms.txt.
package testops
