// Package agent runs the venue's stateful agents: the v/ops/agent/...
// operations, the run loop that wakes an agent when work arrives and calls
// its transition operation, and the transitions the venue ships (a
// deterministic, scripted one and the LLM one in package llm). An agent's
// state is kept in its owner's lattice under g/<agentId>/ (status, config,
// state, tasks, sessions, timeline, error), through the engine, so it is as
// durable as the store. docs/AGENTS.md writes down the transition contract.
package agent
