package mcpbridge

import (
	"context"
	"embed"
	"encoding/json"
	"log/slog"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

//go:embed catalog
var catalogFS embed.FS

// Entries returns the catalog entries of the bridge's operations, under
// v/ops/mcp.
func Entries() ([]runtime.CatalogEntry, error) {
	return runtime.EntriesFromFS(catalogFS, "catalog", "v/ops/mcp")
}

// Config tunes the bridge. Zero values mean the documented default.
type Config struct {
	Outbound    outbound.Policy // where bridged servers may be; the venue's outbound policy
	CallTimeout time.Duration   // longest exchange with a bridged server (connect, list or call); default 30 s
	Logger      *slog.Logger    // nil discards
}

// Bridge runs the "mcp" adapter family. It is safe for concurrent use.
type Bridge struct {
	cfg Config
	out *outbound.Client
	log *slog.Logger
}

// New returns a bridge whose requests follow cfg.Outbound.
func New(cfg Config) *Bridge {
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 30 * time.Second
	}
	if cfg.Outbound.Timeout <= 0 || cfg.Outbound.Timeout > cfg.CallTimeout {
		cfg.Outbound.Timeout = cfg.CallTimeout
	}
	b := &Bridge{cfg: cfg, out: outbound.New(cfg.Outbound), log: cfg.Logger}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	return b
}

// Executor returns the executor of the "mcp" family.
func (b *Bridge) Executor() runtime.Executor { return runtime.ExecutorFunc(b.execute) }

func (b *Bridge) execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	switch op.SubOp() {
	case "server:add":
		return b.add(ctx, input, env)
	case "server:remove":
		return b.remove(ctx, input, env)
	case "server:refresh":
		return b.refresh(ctx, input, env)
	case "tools:list":
		return b.toolsList(ctx, input, env)
	case "call":
		return b.call(ctx, op, input, env)
	}
	return nil, venue.Errorf(venue.EINVALID, "No MCP bridge operation %s on this venue", op.Name)
}
