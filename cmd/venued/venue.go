package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	"github.com/gridvenue/venue/api/auth"
	"github.com/gridvenue/venue/api/rest"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/agent"
	"github.com/gridvenue/venue/runtime/mcpbridge"
	"github.com/gridvenue/venue/runtime/outbound"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/wasm"
)

// Main is a running venue: store, engine and HTTP server. Tests drive it
// the way main does.
type Main struct {
	Config Config
	Logger *slog.Logger
	Addr   string // the address actually listened on, once Run returns

	store  *sql.Store
	wasm   *wasm.Host
	engine *runtime.Engine
	auth   *auth.Auth
	rest   *rest.Server
	server *http.Server
	mcp    mcpLink // the bridge tells the MCP door of changed tools
	bridge *mcpbridge.Bridge
	agents *agent.Agents
}

// NewMain returns a Main for cfg, logging to stderr.
func NewMain(cfg Config) *Main {
	level, _ := cfg.level()
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if cfg.LogFormat == "json" {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	return &Main{Config: cfg, Logger: slog.New(h)}
}

// Run opens the store, starts the engine and serves HTTP until Close.
func (m *Main) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", m.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", m.Config.Listen, err)
	}
	m.Addr = ln.Addr().String()
	if m.Config.URL == "" {
		m.Config.URL = "http://" + m.Addr
	}
	handler, err := m.build(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	m.server = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logger.Error("serve", "err", err)
		}
	}()
	m.Logger.Info("venue listening", "url", m.Config.URL, "addr", m.Addr, "did", m.engine.Identity().DID,
		"store", describeStore(m.Config.Store))
	return nil
}

// build opens the store and engine and returns the HTTP handler.
func (m *Main) build(ctx context.Context) (http.Handler, error) {
	st, err := sql.Open(ctx, m.Config.Store, sql.Options{Logger: m.Logger})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	m.store = st
	ops, err := m.operations(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.addBridge(ops); err != nil {
		return nil, err
	}
	cfg := m.engineConfig(ops.catalog)
	cfg.Flushers = st.FlushParallelism()
	cfg.SingleNode = st.Dialect() == "sqlite"
	m.engine, err = runtime.New(ctx, cfg, runtime.Deps{Store: st, Executors: ops.execs, Checkers: ops.checkers, Logger: m.Logger})
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	if err := m.startAgents(ctx); err != nil {
		return nil, err
	}
	authOpts := m.Config.authOptions()
	authOpts.Logger = m.Logger
	if m.auth, err = auth.New(m.engine, authOpts); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	srv, err := rest.New(m.engine, rest.Options{Logger: m.Logger, MaxBodyBytes: m.Config.MaxBodyBytes, Auth: m.auth})
	if err != nil {
		return nil, err
	}
	m.rest = srv
	mux := http.NewServeMux()
	m.auth.Register(mux) // the login door needs no caller: beside the API, not inside it
	if m.Config.Pprof {
		// The profiler is for operators chasing a performance problem; it is
		// off unless configured, and mounted beside the API, not inside it.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	}
	mux.Handle("/", srv)
	m.mountMCP(mux)
	return mux, nil
}

// engineConfig is the engine's part of the configuration.
func (m *Main) engineConfig(catalog []runtime.CatalogEntry) runtime.Config {
	return runtime.Config{BaseURL: m.Config.URL, Name: m.Config.Name, Seed: m.Config.seed(),
		Workers: m.Config.Workers, JobTimeout: m.Config.jobTimeout(), MaxContentSize: m.Config.MaxContentSize,
		Catalog: catalog, Names: m.Config.Names, Access: m.Config.accessPolicy(),
		Outbound: outbound.Policy{AllowHosts: m.Config.AllowHosts, BlockHosts: m.Config.BlockHosts}}
}

// Close stops serving (letting requests in flight finish, for up to ten
// seconds), stops the engine and closes the store, which removes a
// temporary store.
func (m *Main) Close() error {
	var errs []error
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, m.server.Shutdown(ctx))
		cancel()
	}
	if m.auth != nil {
		m.auth.Close()
	}
	if m.agents != nil {
		m.agents.Close() // before the engine stops the runs' transitions
	}
	if m.engine != nil {
		errs = append(errs, m.engine.Close())
	}
	if m.agents != nil {
		m.agents.Drain(5 * time.Second) // the runs the engine stopped record it, in the store still open
	}
	if m.bridge != nil {
		m.bridge.Close() // after the engine: no call is left to hand a session back
	}
	if m.wasm != nil {
		errs = append(errs, m.wasm.Close(context.Background()))
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
	}
	return errors.Join(errs...)
}

func describeStore(s string) string {
	if s == "" {
		return "temporary SQLite (deleted on exit)"
	}
	if u, ok := redactDSN(s); ok {
		return u
	}
	return s
}

// printOpenAPI writes the OpenAPI document of a venue with default settings.
func printOpenAPI(w io.Writer) error {
	m := &Main{Config: defaultConfig(), Logger: slog.New(slog.DiscardHandler)}
	m.Config.URL = "http://127.0.0.1:8080"
	_, err := m.build(context.Background())
	defer m.Close()
	if err != nil {
		return err
	}
	_, err = w.Write(m.rest.OpenAPI())
	return err
}
