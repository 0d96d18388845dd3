package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
	conns  *connLimit
	// cancelRequests ends the context of every request still running at
	// shutdown once drainGrace has passed.
	cancelRequests context.CancelFunc
	mcp            mcpLink // the bridge tells the MCP door of changed tools
	bridge         *mcpbridge.Bridge
	agents         *agent.Agents
}

// NewMain returns a Main for cfg, logging to stderr.
func NewMain(cfg Config) *Main {
	level, _ := cfg.level()
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(os.Stderr, opts)
	if strings.EqualFold(cfg.LogFormat, "json") {
		h = slog.NewJSONHandler(os.Stderr, opts)
	}
	return &Main{Config: cfg, Logger: slog.New(h)}
}

// Run opens the store, starts the engine and serves HTTP until Close.
func (m *Main) Run(ctx context.Context) error {
	for _, b := range m.Config.looseBounds() {
		m.Logger.Warn(b + ": one caller may hold at most what the venue holds, so it is lowered to that; set it lower to leave room for others")
	}
	if w := m.Config.processorsOver(); w != "" {
		m.Logger.Warn(w)
	}
	ln, err := net.Listen("tcp", m.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set listen, VENUE_LISTEN or --listen, to a free host:port such as 127.0.0.1:9090)", m.Config.Listen, err)
	}
	m.Addr = boundAddr(m.Config.Listen, ln.Addr())
	m.conns = newConnLimit(ln, m.Config.maxConnections(), m.Logger)
	ln = m.conns
	if m.Config.URL == "" {
		m.Config.URL = m.defaultURL()
	}
	handler, err := m.build(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	requests, cancel := context.WithCancel(context.Background())
	m.cancelRequests = cancel
	m.server = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(m.Logger.Handler(), slog.LevelWarn),
		BaseContext: func(net.Listener) context.Context { return requests }}
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logger.Error("serve", "err", err)
		}
	}()
	// The version, for an operator upgrading several nodes, who must stop
	// every node of the old one first (README).
	m.Logger.Info("venue listening", "version", m.engine.Version(), "url", m.Config.URL, "addr", m.Addr, "did", m.engine.Identity().DID,
		"store", describeStore(m.Config.Store), "name", m.Config.Name, "testOps", m.Config.testOps(),
		"docs", strings.TrimSuffix(m.Config.URL, "/")+"/swagger")
	return nil
}

// boundAddr is the address the venue listens on, as the operator named
// its host: Go reports a listener on 0.0.0.0 (or on no host) as [::],
// which the start log showed to an operator who had asked for 0.0.0.0.
func boundAddr(asked string, got net.Addr) string {
	host, _, err := net.SplitHostPort(asked)
	_, port, err2 := net.SplitHostPort(got.String())
	if err != nil || err2 != nil {
		return got.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return net.JoinHostPort(host, port)
	}
	return got.String()
}

// listenURL is the base URL of a venue listening on addr, and whether addr
// is every interface, which it names as localhost.
func listenURL(addr string) (string, bool) {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return "http://" + addr, false
	}
	return "http://localhost:" + port, true
}

// defaultURL is the public base URL when none is configured: the listening
// address, or localhost on it when the venue listens on every interface,
// since a DID derived from 0.0.0.0 or [::] names no host a client can
// reach. That is right only for clients on this machine, so it warns.
func (m *Main) defaultURL() string {
	u, everywhere := listenURL(m.Addr)
	if !everywhere {
		return u
	}
	m.Logger.Warn("listening on every interface without a public URL: the venue's DID and links use "+u+
		", which only this machine reaches; set url (VENUE_URL, --url) to the address clients use", "listen", m.Config.Listen)
	return u
}

// localHosts is what a venue listening on loopback answers to besides
// loopback addresses (rest.Options.Hosts): localhost and the host of its
// url. A venue listening elsewhere answers to any name (nil).
func (m *Main) localHosts() []string {
	host, _, err := net.SplitHostPort(m.Addr)
	if err != nil {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.Unmap().IsLoopback() {
		return nil
	}
	hosts := []string{"localhost"}
	if u, err := url.Parse(m.Config.URL); err == nil && u.Hostname() != "" {
		hosts = append(hosts, u.Hostname())
	}
	return hosts
}

// build opens the store and engine and returns the HTTP handler.
func (m *Main) build(ctx context.Context) (http.Handler, error) {
	if err := checkStorePath(m.Config.Store); err != nil {
		return nil, err
	}
	st, err := sql.Open(ctx, m.Config.Store, sql.Options{Logger: m.Logger, ConnectWait: m.Config.storeWait(), MaxUserValuesBytes: cmp.Or(m.Config.MaxUserValues, 1<<30),
		MaxUserAssetsBytes: cmp.Or(m.Config.MaxUserAssets, defaultMaxUserAssets)})
	if err != nil {
		if dsn, isPostgres := redactDSN(m.Config.Store); isPostgres {
			// sql.Open's errors say "open store" and what failed (a refused
			// connection, a missing database), not which PostgreSQL: with
			// several nodes, or a DSN from an orchestrator, that is the question.
			return nil, fmt.Errorf("%w (store %s)", err, dsn)
		}
		return nil, err // sql.Open's errors already say "open store" and name the file
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
	m.noteServedAs(ctx)
	if err := m.startAgents(ctx); err != nil {
		return nil, err
	}
	authOpts := m.Config.authOptions()
	authOpts.Logger = m.Logger
	if m.auth, err = auth.New(m.engine, authOpts); err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	srv, err := rest.New(m.engine, rest.Options{Logger: m.Logger, MaxBodyBytes: m.Config.MaxBodyBytes, MaxBodiesBytes: m.Config.MaxBodiesBytes, Auth: m.auth,
		BodyTimeout: m.Config.bodyTimeout(), Hosts: m.localHosts()})
	if err != nil {
		return nil, err
	}
	m.rest = srv
	return m.doors(), nil
}

// metaServedAs keeps the DID a durable store was last served as.
const metaServedAs = "venued.served-as"

// noteServedAs warns when a durable store was last served as another DID,
// then records this one. The DID derives from url, which by default is the
// listening address: a store started again on another port (or a second
// node given its own url) is served as another venue, whose anonymous
// caller is another identity, and whatever the old one kept (jobs, secrets,
// values) seems gone, with nothing in the log to say why.
func (m *Main) noteServedAs(ctx context.Context) {
	if m.Config.Store == "" {
		return // a temporary store is new at every start
	}
	did := m.engine.Identity().DID
	was, err := m.store.PutMetaIfAbsent(ctx, metaServedAs, []byte(did))
	if err != nil || string(was) == did {
		return
	}
	m.Logger.Warn("this store was last served as another DID: callers without a token no longer see what they kept under it (jobs, "+
		"secrets, values) and tokens addressed to it are refused; to serve it as before, set url (VENUE_URL, --url) to the URL that DID names",
		"was", string(was), "now", did)
	if m.store.DeleteMeta(ctx, metaServedAs) == nil { // warned once: this is the DID from now on
		m.store.PutMetaIfAbsent(ctx, metaServedAs, []byte(did))
	}
}

// doors mounts the REST door and those beside it (sign-in, MCP, the
// profiler), all behind the REST door's guard.
func (m *Main) doors() http.Handler {
	mux := http.NewServeMux()
	m.auth.Register(mux) // the login door needs no caller: beside the API, not inside it
	if m.Config.Pprof {
		// The profiler is for operators chasing a performance problem; it is
		// off unless configured, and mounted beside the API, not inside it.
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.Handle("/", m.rest)
	m.mountMCP(mux)
	return m.rest.Guard(apiFirst(m.rest, logSideDoors(mux, m.rest.LogRequests)))
}

// logSideDoors logs the requests of the doors beside the REST one (sign-in,
// MCP and its discovery, the profiler) as the REST door logs its own, which
// it leaves to that door: without it a sign-in provider that cannot be
// reached (502 at /auth/<provider>) or a failing /mcp left no line in the
// operator's log.
func logSideDoors(mux *http.ServeMux, logged func(http.Handler) http.Handler) http.Handler {
	side := logged(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "/" { // the REST door, which logs its own
			mux.ServeHTTP(w, r)
			return
		}
		side.ServeHTTP(w, r)
	})
}

// apiFirst hands REST API paths to the REST door directly: the doors' mux
// has no route under /api/v1/ and would hand them there too, after a
// routing lookup of its own on every request.
func apiFirst(api, doors http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") {
			api.ServeHTTP(w, r)
			return
		}
		doors.ServeHTTP(w, r)
	})
}

// engineConfig is the engine's part of the configuration.
func (m *Main) engineConfig(catalog []runtime.CatalogEntry) runtime.Config {
	return runtime.Config{BaseURL: m.Config.URL, Name: m.Config.Name, Seed: m.Config.seed(),
		Workers: m.Config.Workers, CallerWorkers: m.Config.callerWorkers(), UploadedWorkers: m.Config.uploadedWorkers(), MaxJobs: m.Config.MaxJobs, MaxCallerJobs: m.Config.MaxCallerJobs,
		MaxJobBytes: m.Config.MaxJobBytes, MaxCallerBytes: m.Config.MaxCallerBytes,
		JobTimeout:     m.Config.jobTimeout(),
		JobRetention:   m.Config.jobRetention(),
		MaxContentSize: m.Config.MaxContentSize, Catalog: catalog, Names: m.Config.Names, Access: m.Config.accessPolicy(),
		Outbound: outbound.Policy{AllowHosts: m.Config.AllowHosts, BlockHosts: m.Config.BlockHosts}}
}

// How the HTTP server stops: requests in flight get drainGrace to finish;
// then the engine stops and records how its jobs ended, which job event
// streams and waiting invokes still open pass on; then whatever still runs
// (waits for a job, streams, MCP streams) ends; connections still open
// after shutdownTimeout are closed.
const (
	drainGrace      = 2 * time.Second
	agentsGrace     = 3 * time.Second // for the agents' runs the engine stopped to record it
	streamsGrace    = time.Second     // for job event streams to send their jobs' ends
	shutdownTimeout = 10 * time.Second
)

// Close stops serving, stops the engine and closes the store, which removes
// a temporary store.
func (m *Main) Close() error {
	var errs []error
	var served chan error // the HTTP server's drain, while it goes on
	if m.server != nil {
		served = make(chan error, 1)
		go func() { served <- m.stopServing() }()
		// Requests in flight get drainGrace with the engine; then it stops
		// and records how its jobs ended while slow connections (an upload)
		// drain on. After the whole drain, a container stop's 10 s could
		// kill the venue before its jobs were settled.
		select {
		case err := <-served:
			errs, served = append(errs, err), nil
		case <-time.After(drainGrace):
		}
	}
	if m.auth != nil {
		m.auth.Close()
	}
	if m.agents != nil {
		m.agents.Close() // before the engine stops the runs' transitions
	}
	if m.engine != nil {
		m.engine.Stop()
	}
	if m.agents != nil {
		// The runs the engine stopped record it, and a run that resolved
		// its task as the venue stopped ends the task's job, while the
		// engine still writes.
		m.agents.Drain(agentsGrace)
	}
	if m.engine != nil {
		errs = append(errs, m.engine.Close())
	}
	if m.rest != nil {
		m.rest.EndStreams(streamsGrace)
	}
	if m.cancelRequests != nil {
		m.cancelRequests()
	}
	if served != nil {
		errs = append(errs, m.awaitDrain(served))
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

// awaitDrain waits for the HTTP server's drain, saying so first when
// connections are still busy (a slow upload, download or stream): they may
// hold the stop up to shutdownTimeout, which without a word looked like a
// venue that hung.
func (m *Main) awaitDrain(served <-chan error) error {
	select {
	case err := <-served:
		return err
	default:
	}
	m.Logger.Info("waiting for the connections still busy (a slow upload, download or stream) to finish; a second signal exits at once",
		"open", m.conns.open(), "atMost", shutdownTimeout)
	return <-served
}

// checkStorePath refuses a SQLite store path naming a directory, which
// SQLite reports only as "unable to open database file".
func checkStorePath(store string) error {
	if _, isPostgres := redactDSN(store); isPostgres || store == "" {
		return nil
	}
	path := strings.TrimPrefix(store, "file:")
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("store %s is a directory: give the path of a database file, such as %s", path, filepath.Join(path, "venue.db"))
	}
	return nil
}

// stopServing shuts the HTTP server down. Close ends the requests still
// running once the engine has stopped; a wait cut short answers with the
// job's record as it stands, which the client can poll.
func (m *Main) stopServing() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	defer m.cancelRequests()
	err := m.server.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		m.Logger.Warn("connections still busy after the shutdown timeout were closed", "timeout", shutdownTimeout)
		return m.server.Close()
	}
	return err
}

func describeStore(s string) string {
	if s == "" {
		return "temporary SQLite (deleted on exit)"
	}
	if u, ok := redactDSN(s); ok {
		return u
	}
	if abs, err := filepath.Abs(strings.TrimPrefix(s, "file:")); err == nil && !strings.Contains(s, "?") {
		return abs // where the file is, whatever directory the venue was started in
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
