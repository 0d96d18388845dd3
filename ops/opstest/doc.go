// Package opstest holds the worst inputs found for the built-in operations,
// for the tests that run them through the Wasm host (package ops) and
// through a whole venue (cmd/venued). The built-in module runs without
// termination checks (docs/RATIONALE.md), so each of these must end by
// itself, quickly, with the outcome its case names.
package opstest
