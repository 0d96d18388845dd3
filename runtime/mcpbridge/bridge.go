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
	SessionIdle time.Duration   // an open client session unused this long is closed; default 1 minute
	Changed     func()          // called after bridged tools were added, refreshed or removed; nil for none
	Logger      *slog.Logger    // nil discards
}

// maxIdleSessions bounds the open sessions kept per caller, server and
// token between calls; more concurrent calls open more, and close them after.
const maxIdleSessions = 4

// Bridge runs the "mcp" adapter family. It is safe for concurrent use.
type Bridge struct {
	cfg  Config
	out  *outbound.Client
	log  *slog.Logger
	pool *pool
}

// New returns a bridge whose requests follow cfg.Outbound.
func New(cfg Config) *Bridge {
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 30 * time.Second
	}
	if cfg.Outbound.Timeout <= 0 || cfg.Outbound.Timeout > cfg.CallTimeout {
		cfg.Outbound.Timeout = cfg.CallTimeout
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = time.Minute
	}
	b := &Bridge{cfg: cfg, out: outbound.New(cfg.Outbound), log: cfg.Logger, pool: newPool(cfg.SessionIdle, maxIdleSessions)}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	return b
}

// Executor returns the executor of the "mcp" family.
func (b *Bridge) Executor() runtime.Executor { return runtime.ExecutorFunc(b.execute) }

// Close ends the sessions kept open to bridged servers, and any that calls
// still under way hand back later.
func (b *Bridge) Close() { b.pool.close() }

func (b *Bridge) execute(ctx context.Context, op *venue.Operation, input json.RawMessage, env *runtime.Env) (json.RawMessage, error) {
	switch op.SubOp() {
	case "server:add":
		return b.changing(b.add(ctx, input, env))
	case "server:remove":
		return b.changing(b.remove(ctx, input, env))
	case "server:refresh":
		return b.changing(b.refresh(ctx, input, env))
	case "tools:list":
		return b.toolsList(ctx, input, env)
	case "call":
		return b.call(ctx, op, input, env)
	}
	return nil, venue.Errorf(venue.EINVALID, "No MCP bridge operation %s on this venue", op.Name)
}

// changing passes on the result of a change to bridged tools, telling
// Config.Changed when it succeeded.
func (b *Bridge) changing(out json.RawMessage, err error) (json.RawMessage, error) {
	if err == nil && b.cfg.Changed != nil {
		b.cfg.Changed()
	}
	return out, err
}
