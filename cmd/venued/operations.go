package main

import (
	"context"
	"fmt"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/ops"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/native"
	"github.com/gridvenue/venue/runtime/testops"
	"github.com/gridvenue/venue/wasm"
)

// operations gathers every operation family: the built-in Wasm module's
// (core, schema, json, http, secret), the native ones (grid), the engine's
// test operations where configured, and users' uploaded Wasm modules, with the checker that
// vets uploaded code.
type operations struct {
	catalog  []runtime.CatalogEntry
	execs    map[string]runtime.Executor
	checkers map[string]runtime.ModuleChecker
}

func (m *Main) operations(ctx context.Context) (*operations, error) {
	host, err := wasm.New(ctx, wasm.Config{MemoryLimitPages: m.Config.wasmPages(), Processors: m.Config.UploadedProcessors, CacheDir: m.Config.wasmCache(), Logger: m.Logger, WaitForCompile: m.Config.WasmWaitCompile})
	if err != nil && m.Config.WasmCacheDir == "" && m.Config.wasmCache() != "" && strings.Contains(err.Error(), m.Config.wasmCache()) {
		// The default cache is a convenience: a read-only file system (a
		// container's, say) runs without it rather than not at all.
		m.Logger.Warn("the default wasm cache cannot be used; running without one (set wasmCacheDir, or \"off\")", "dir", m.Config.wasmCache(), "err", err)
		host, err = wasm.New(ctx, wasm.Config{MemoryLimitPages: m.Config.wasmPages(), Processors: m.Config.UploadedProcessors, Logger: m.Logger, WaitForCompile: m.Config.WasmWaitCompile})
	}
	if err != nil {
		if dir := m.Config.wasmCache(); dir != "" {
			// The cache directory is what an operator can get wrong.
			return nil, fmt.Errorf("start the wasm host (wasmCacheDir %s, or \"off\" for none): %w", dir, err)
		}
		return nil, fmt.Errorf("start the wasm host: %w", err)
	}
	m.wasm = host
	builtin, err := host.Builtin(ops.Module())
	if err != nil {
		return nil, fmt.Errorf("load the built-in operations: %w", err)
	}
	o := &operations{execs: native.Executors(), checkers: map[string]runtime.ModuleChecker{"wasm": host}}
	families := []func() ([]runtime.CatalogEntry, error){ops.Entries, native.Entries}
	if m.Config.testOps() {
		families = append(families, testops.Entries)
		o.execs["test"] = testops.Executor()
	}
	for _, load := range families {
		entries, err := load()
		if err != nil {
			return nil, err
		}
		o.catalog = append(o.catalog, entries...)
	}
	builtins, _ := ops.Entries()
	for _, en := range builtins {
		o.execs[family(en)] = builtin
	}
	if err := m.addAgents(o); err != nil {
		return nil, err
	}
	o.execs["wasm"] = host.Uploaded(func(ctx context.Context, env *runtime.Env, _ *venue.Operation) ([]byte, error) {
		return env.OperationModule(ctx)
	})
	return o, nil
}

// family returns the adapter family of a catalog entry at v/ops/<family>/...
func family(en runtime.CatalogEntry) string {
	parts := strings.SplitN(en.Path, "/", 4)
	return parts[2]
}
