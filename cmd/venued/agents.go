package main

import (
	"context"
	"fmt"

	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/agent"
	"github.com/gridvenue/venue/runtime/agent/llm"
)

// addAgents adds the agent operations (v/ops/agent, the transitions, skills
// import) and their executors.
func (m *Main) addAgents(o *operations) error {
	for _, load := range []func() ([]runtime.CatalogEntry, error){agent.Entries, llm.Entries} {
		entries, err := load()
		if err != nil {
			return err
		}
		o.catalog = append(o.catalog, entries...)
	}
	o.catalog = append(o.catalog, agent.TemplateEntries()...)
	agents := agent.New(agent.Config{SingleNode: m.store.Dialect() == "sqlite"})
	m.agents = agents
	for fam, ex := range agents.Executors() {
		o.execs[fam] = ex
	}
	for fam, ex := range llm.Executors() {
		o.execs[fam] = ex
	}
	return nil
}

// startAgents takes up the agents a previous run of the venue left in a
// run, once the engine is up.
func (m *Main) startAgents(ctx context.Context) error {
	if err := m.agents.Start(ctx, m.engine); err != nil {
		return fmt.Errorf("start agents: %w", err)
	}
	return nil
}
