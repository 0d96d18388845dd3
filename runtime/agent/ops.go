package agent

import (
	"embed"

	venue "github.com/gridvenue/venue"
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
		"agent": agentOps{runtime.OpFuncs{
			"create": a.create, "update": a.updateOp, "fork": a.fork, "suspend": a.suspend,
			"resume": a.resume, "delete": a.deleteOp, "cancelTask": a.cancelTask, "info": a.info,
			"list": a.list, "context": a.contextOp, "request": a.request, "chat": a.chat,
			"message": a.message, "trigger": a.trigger, "completeTask": a.completeTask,
			"failTask": a.failTask, "task": a.task, "fromSkills": a.fromSkills,
			"sessions": a.sessionsOp, "deleteSession": a.deleteSession,
		}},
		"transition": runtime.OpFuncs{"scripted": Scripted},
		"skills":     runtime.OpFuncs{"import": a.importSkill},
	}
}

// agentOps runs the agent family. Its task jobs outlive the process: a
// task waits for its agent, whose queue is in the store, so a shutdown or
// restart leaves the job open and the agent ends it (runtime.Settle).
type agentOps struct{ runtime.OpFuncs }

var _ runtime.Outliver = agentOps{}

// Outlives reports whether op's jobs outlive the process: the task job's.
func (agentOps) Outlives(op *venue.Operation) bool { return op.SubOp() == "task" }
