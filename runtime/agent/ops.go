package agent

import (
	"embed"

	"github.com/gridvenue/venue/runtime"
)

//go:embed catalog
var catalogFS embed.FS

// Entries returns the catalog entries of the agent operations (v/ops/agent,
// v/ops/transition, v/ops/skills) and of the task job (v/agents/ops/task).
func Entries() ([]runtime.CatalogEntry, error) {
	ops, err := runtime.EntriesFromFS(catalogFS, "catalog/ops", "v/ops")
	if err != nil {
		return nil, err
	}
	hidden, err := runtime.EntriesFromFS(catalogFS, "catalog/agents", "v/agents")
	return append(ops, hidden...), err
}

// Executors returns the executors of the agent families, by adapter family.
func (a *Agents) Executors() map[string]runtime.Executor {
	return map[string]runtime.Executor{
		"agent": runtime.OpFuncs{
			"create": a.create, "update": a.updateOp, "fork": a.fork, "suspend": a.suspend,
			"resume": a.resume, "delete": a.deleteOp, "cancelTask": a.cancelTask, "info": a.info,
			"list": a.list, "context": a.contextOp, "request": a.request, "chat": a.chat,
			"message": a.message, "trigger": a.trigger, "completeTask": a.completeTask,
			"failTask": a.failTask, "task": a.task, "fromSkills": a.fromSkills,
		},
		"transition": runtime.OpFuncs{"scripted": Scripted},
		"skills":     runtime.OpFuncs{"import": a.importSkill},
	}
}
