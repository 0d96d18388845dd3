package wasm

import (
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	venue "github.com/gridvenue/venue"
)

// ABI is how the host talks to a module.
type ABI string

// The ABIs of doc.go.
const (
	Reactor ABI = "reactor" // exports memory, venue_abi_1, venue_alloc and venue_run; instances are pooled
	Command ABI = "command" // a WASI command (exports _start); a fresh instance runs each call
)

// Export names of the reactor ABI, version 1.
const (
	exportMemory = "memory"
	exportInit   = "_initialize"
	exportStart  = "_start"
	exportMarker = "venue_abi_1"
	exportAlloc  = "venue_alloc"
	exportRun    = "venue_run"
	hostModule   = "venue"
)

const (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
)

// abiOf tells which ABI a compiled module speaks and whether it exports
// _initialize, or why the venue cannot run it.
func abiOf(cm wazero.CompiledModule) (ABI, bool, error) {
	fns := cm.ExportedFunctions()
	_, hasMemory := cm.ExportedMemories()[exportMemory]
	alloc, run := fns[exportAlloc], fns[exportRun]
	switch {
	case hasMemory && alloc != nil && run != nil:
		if fns[exportMarker] == nil {
			return "", false, venue.Errorf(venue.EINVALID, "module exports venue_alloc and venue_run but not venue_abi_1, the marker of the reactor ABI it implements: export a function venue_abi_1 of type () -> () (wasm/guest does), or, if it was built for another version of the ABI, rebuild it for this one")
		}
		if err := signature(alloc, []api.ValueType{i32}, []api.ValueType{i32}); err != nil {
			return "", false, err
		}
		if err := signature(run, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}); err != nil {
			return "", false, err
		}
		init := fns[exportInit]
		if init != nil {
			if err := signature(init, nil, nil); err != nil {
				return "", false, err
			}
		} else if fns[exportStart] != nil {
			// A command that also exports the reactor ABI (a Go guest built
			// without -buildmode=c-shared): run as a reactor, its runtime
			// would never be initialised and every call would crash.
			return "", false, venue.Errorf(venue.EINVALID, "module exports the reactor ABI (venue_alloc, venue_run) and a WASI command's _start but no _initialize: it was built as a command, so its runtime would never be initialised; build it as a reactor library (Go: -buildmode=c-shared; C: -mexec-model=reactor)")
		}
		return Reactor, init != nil, nil
	case fns[exportStart] != nil:
		if err := signature(fns[exportStart], nil, nil); err != nil {
			return "", false, err
		}
		return Command, false, nil
	}
	msg := "module exports neither the reactor ABI (memory, venue_alloc, venue_run) nor a WASI command's _start"
	if missing := missingReactor(hasMemory, alloc, run); len(missing) < 3 {
		msg += " (it lacks " + strings.Join(missing, " and ") + ")"
	}
	return "", false, venue.Errorf(venue.EINVALID, "%s", msg)
}

func missingReactor(hasMemory bool, alloc, run api.FunctionDefinition) []string {
	var missing []string
	if !hasMemory {
		missing = append(missing, exportMemory)
	}
	if alloc == nil {
		missing = append(missing, exportAlloc)
	}
	if run == nil {
		missing = append(missing, exportRun)
	}
	return missing
}

func signature(fn api.FunctionDefinition, params, results []api.ValueType) error {
	if slices.Equal(fn.ParamTypes(), params) && slices.Equal(fn.ResultTypes(), results) {
		return nil
	}
	return venue.Errorf(venue.EINVALID, "module's %s has the signature %s; the ABI wants %s",
		fn.ExportNames()[0], sig(fn.ParamTypes(), fn.ResultTypes()), sig(params, results))
}

func sig(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return names(params) + " -> " + names(results)
}

// checkImports refuses a module that imports anything but functions of
// wasi_snapshot_preview1 and of the venue host module, as the host
// provides them: the sandbox has no other doors.
func checkImports(cm wazero.CompiledModule, hosts map[string]api.Module) error {
	if mems := cm.ImportedMemories(); len(mems) > 0 {
		mod, name, _ := mems[0].Import()
		return venue.Errorf(venue.EINVALID, "module imports the memory %s.%s; a module must define its own memory", mod, name)
	}
	for _, fn := range cm.ImportedFunctions() {
		mod, name, _ := fn.Import()
		host, ok := hosts[mod]
		if !ok {
			return venue.Errorf(venue.EINVALID, "module imports %s.%s; only functions of %s and %s may be imported",
				mod, name, wasi_snapshot_preview1.ModuleName, hostModule)
		}
		def, ok := host.ExportedFunctionDefinitions()[name]
		if !ok {
			return venue.Errorf(venue.EINVALID, "module imports %s.%s, which the venue does not provide", mod, name)
		}
		if !slices.Equal(def.ParamTypes(), fn.ParamTypes()) || !slices.Equal(def.ResultTypes(), fn.ResultTypes()) {
			return venue.Errorf(venue.EINVALID, "module imports %s.%s as %s; the venue provides %s", mod, name,
				sig(fn.ParamTypes(), fn.ResultTypes()), sig(def.ParamTypes(), def.ResultTypes()))
		}
	}
	return nil
}
