package runtime

import (
	"context"
	"crypto/cipher"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime/outbound"
)

// Release is the venue's version, which status reports unless
// Config.Version says otherwise.
const Release = "0.5.0"

// Config tunes the engine. A zero value means the documented default.
type Config struct {
	BaseURL         string            // public base URL; default http://127.0.0.1:8080
	Name            string            // venue name; default "Venue"
	Version         string            // venue version reported by status; default "0.5.0"
	Seed            []byte            // Ed25519 seed; default: kept in the store
	Workers         int               // jobs executing at once; default 64
	MaxJobs         int               // unfinished jobs this node holds at once (heldJobs); default 20,000
	MaxCallerJobs   int               // of them, one caller's; default 5,000 (at most MaxJobs)
	MaxJobBytes     int64             // bytes of input the unfinished jobs hold together; default 256 MiB
	MaxCallerBytes  int64             // of them, one caller's jobs'; default 64 MiB (at most MaxJobBytes)
	CallerWorkers   int               // jobs of one caller executing at once (jobs spawned by jobs not counted); default: no bound but Workers
	UploadedWorkers int               // jobs running uploaded code at once; default and most: uploadedWorkers(Workers)
	JobTimeout      time.Duration     // deadline of one execution; default 10 minutes
	JobRetention    time.Duration     // records of jobs that ended longer ago are deleted (see pruneLoop); 0 keeps them
	MaxWait         time.Duration     // longest invoke wait; default 120 s
	MaxContentSize  int64             // largest asset content; default 1 GiB
	MaxMetaSize     int               // largest asset metadata; default 1 MiB
	MaxOutputSize   int               // largest operation output; default 16 MiB
	MaxValueSize    int               // largest lattice value; default 4 MiB
	Flushers        int               // concurrent job-record flushes; default 1
	Catalog         []CatalogEntry    // the venue's own operations
	Names           map[string]string // registered operation names → references
	SingleNode      bool              // the store has no other process: fail jobs a previous run left unfinished
	Outbound        outbound.Policy   // where operations' HTTP requests may go; its MaxResponse defaults to 6 MiB here (maxHTTPBody)
	Access          AccessPolicy      // what anonymous callers and admins may do; zero: anonymous may do nothing checked
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://127.0.0.1:8080"
	}
	if c.Name == "" {
		c.Name = "Venue"
	}
	if c.Version == "" {
		c.Version = Release
	}
	def(&c.Workers, 64)
	def(&c.MaxJobs, 20_000)
	def(&c.MaxCallerJobs, 5_000)
	if c.MaxJobBytes <= 0 {
		c.MaxJobBytes = 256 << 20
	}
	if c.MaxCallerBytes <= 0 {
		c.MaxCallerBytes = 64 << 20
	}
	def(&c.MaxMetaSize, 1<<20)
	def(&c.MaxOutputSize, 16<<20)
	if c.Outbound.MaxResponse <= 0 {
		c.Outbound.MaxResponse = maxHTTPBody
	}
	def(&c.Flushers, 1)
	if c.JobTimeout <= 0 {
		c.JobTimeout = 10 * time.Minute
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 120 * time.Second
	}
	if c.MaxContentSize <= 0 {
		c.MaxContentSize = DefaultMaxContentSize
	}
}

// DefaultMaxContentSize is the largest asset content, in bytes, when the
// configuration gives no MaxContentSize.
const DefaultMaxContentSize = 1 << 30

// Deps are the engine's collaborators.
type Deps struct {
	Store     Store
	Executors map[string]Executor      // by adapter family, e.g. "core", "wasm", "test"
	Checkers  map[string]ModuleChecker // by adapter, for uploaded operation code, e.g. "wasm"
	Logger    *slog.Logger             // nil discards
	Now       func() time.Time         // nil means time.Now
}

// Engine runs the venue. It is safe for concurrent use.
type Engine struct {
	cfg             Config
	store           Store
	execs           map[string]Executor
	checkers        map[string]ModuleChecker
	log             *slog.Logger
	now             func() time.Time
	id              Identity
	publicDID       string // id.PublicDID(), asked on every anonymous request
	cat             *catalog
	ids             idGen
	pool            pool
	uploaded        *fairPool // the worker slots uploaded code may hold (uploadedWorkers)
	workers         *workers
	callers         *callerSlots
	logs            logBudget // operations' log lines, per caller
	writer          *writer
	hub             hub
	jobs            activeJobs
	finished        finished               // records of jobs ended lately, on a single-node store
	drops           sync.WaitGroup         // deletions of ended jobs' queued messages under way
	background      sync.WaitGroup         // the engine's own loops (pruneLoop)
	writeFailures   atomic.Int64           // group commits failed since the last that succeeded (noteWrite)
	writeFailLogged atomic.Int64           // unix ns of the last such failure logged
	keys            forgetful[cipher.AEAD] // owners' secrets keys
	users           forgetful[bool]        // DIDs known to be recorded
	schemas         schemaCache
	indexes         *indexCache  // of large maps and vectors, for their pages
	unfinished      atomic.Int64 // jobs held here whose terminal record is not yet queued
	held            *heldJobs    // the same jobs by caller, bounded
	executing       atomic.Int64 // executions under way, waiting for a worker included
	started         time.Time
	life            context.Context // ends when the engine starts closing
	stop            context.CancelFunc
	closed          chan struct{} // closed once Close has written out every record
	closeOnce       sync.Once
	stopOnce        sync.Once
	http            *outbound.Client
	counts          *recounts // what /status counts, reused for a while
}

// New builds an engine over deps.Store, loading or creating the venue key,
// and starts its background work. Close stops it.
func New(ctx context.Context, cfg Config, deps Deps) (*Engine, error) {
	cfg.setDefaults()
	e := &Engine{cfg: cfg, store: deps.Store, execs: deps.Executors, checkers: deps.Checkers, log: deps.Logger, now: deps.Now}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.now == nil {
		e.now = time.Now
	}
	e.ids.now, e.started = e.now, e.now()
	id, notes, err := loadIdentity(ctx, deps.Store, cfg.Seed, cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if notes.dropped {
		e.log.Info("the store kept a copy of the configured seed, which opens every secret it holds: the copy is replaced by a mark, and the seed must be given at every start")
	}
	e.id, e.publicDID = id, id.PublicDID()
	info := map[string]any{"did": id.DID, "name": cfg.Name, "version": cfg.Version,
		"url": id.BaseURL, "started": e.started.UnixMilli()}
	if e.cat, err = newCatalog(cfg.Catalog, info); err != nil {
		return nil, err
	}
	if err := e.checkNames(); err != nil {
		return nil, err
	}
	e.pool = newPool(cfg.Workers)
	e.indexes = newIndexCache(indexCacheBytes)
	e.uploaded = newFairPool(cfg.uploadedSlots())
	e.callers = newCallerSlots(cfg.CallerWorkers)
	e.http = outbound.New(cfg.Outbound)
	e.jobs.init()
	e.keys.max, e.users.max = maxKeys, maxUsers
	if cfg.SingleNode {
		e.finished.init(finishedMaxSize)
	}
	bg, stop := context.WithCancel(context.Background())
	e.life, e.stop, e.closed = bg, stop, make(chan struct{})
	e.counts = newRecounts(bg, e.now, recountKeys)
	e.workers = newWorkers(min(cfg.Workers, maxIdleWorkers), bg.Done())
	e.held = newHeldJobs(held{cfg.MaxJobs, cfg.MaxJobBytes}, held{cfg.MaxCallerJobs, cfg.MaxCallerBytes})
	e.writer = newWriter(deps.Store, cfg.Flushers, func() int { return int(e.unfinished.Load()) }, e.flushed, e.log)
	if err := e.recover(ctx); err != nil {
		stop()
		e.writer.close()
		return nil, err
	}
	if n, ok := deps.Store.(Notifier); ok {
		if err := n.ListenJobs(bg, e.onNote); err != nil {
			stop()
			e.writer.close()
			return nil, err
		}
	}
	if cfg.JobRetention > 0 {
		e.background.Add(1)
		go e.pruneLoop()
	}
	return e, nil
}

// Bounds of the engine's memory of owners' keys (some 1 KB each; derived
// again in microseconds) and of users already recorded (about 200 bytes;
// recorded again with one statement).
const (
	maxKeys  = 10_000
	maxUsers = 100_000
)

// maxIdleWorkers bounds the goroutines kept waiting for executions (see
// workers): each holds a stack grown by the jobs it ran.
const maxIdleWorkers = 64

// Stop stops accepting work, stops the jobs running here and records how
// they ended. Records written after it (an Outliver settling what the
// shutdown left open) still reach the store, until Close.
func (e *Engine) Stop() {
	e.stopOnce.Do(func() {
		e.stop()
		if n := e.unsettled(); n > 0 {
			// Said before they end: most record their own end as they stop,
			// which settleAtShutdown's count leaves out.
			e.log.Info("stopping the jobs queued, running or waiting for a reply here: each ends FAILED", "count", n)
		}
		e.jobs.cancelAll()
		e.settleAtShutdown(shutdownGrace)
	})
}

// Close stops the engine if Stop has not, then writes out every record
// still buffered. It does not close the store.
func (e *Engine) Close() error {
	e.Stop()
	err := e.writer.close()
	e.closeOnce.Do(func() { close(e.closed) }) // every end is published: watchers may finish
	e.drops.Wait()
	e.background.Wait()
	return err
}

// shutdownGrace is how long Close lets cancelled executions record their
// end before it records it for them.
const shutdownGrace = 2 * time.Second

// settleAtShutdown waits up to grace for the cancelled executions to end,
// failing their jobs, then fails those still running or waiting here.
// Without it a stopped node left them STARTED: its writer closed before
// their records came (on PostgreSQL, for good). A paused job stays PAUSED
// (another node may resume it), and one whose operation outlives the
// process stays open for its Outliver.
func (e *Engine) settleAtShutdown(grace time.Duration) {
	deadline := time.Now().Add(grace)
	for e.executing.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	failed := 0
	for _, j := range e.jobs.list() {
		j.mu.Lock()
		if !j.settled() {
			failed++
			msg := "The venue shut down while the job was running"
			if j.rec.Status == venue.StatusPending {
				msg = "The venue shut down before the job started"
			}
			j.run++ // a late result of the execution counts for nothing
			j.errCode = stoppedCode
			e.transit(j, venue.StatusFailed, func(n *venue.Job) { n.Error = msg })
		}
		j.mu.Unlock()
	}
	if failed > 0 {
		e.log.Info("failed the jobs still queued or running at shutdown", "count", failed)
	}
}

// unsettled counts the jobs held here that settleAtShutdown would fail.
func (e *Engine) unsettled() int {
	n := 0
	for _, j := range e.jobs.list() {
		j.mu.Lock()
		if !j.settled() {
			n++
		}
		j.mu.Unlock()
	}
	return n
}

// settled reports whether j needs nothing from settleAtShutdown. Call with
// j.mu held.
func (j *job) settled() bool {
	st := j.rec.Status
	return st.Terminal() || st == venue.StatusPaused || j.handed
}

// Identity returns the venue's key and DID.
func (e *Engine) Identity() Identity { return e.id }

// PublicCaller is the identity every anonymous caller shares.
func (e *Engine) PublicCaller() venue.Caller {
	return venue.Caller{DID: e.publicDID, Anonymous: true}
}

// caller returns the request's caller, or EUNAUTHORIZED if a door forgot to
// set one: the engine never guesses who is asking.
func (e *Engine) caller(ctx context.Context) (venue.Caller, error) {
	c, ok := venue.CallerFrom(ctx)
	if !ok {
		return c, venue.Errorf(venue.EUNAUTHORIZED, "Authentication required")
	}
	return c, nil
}

// touchUser records a caller the first time this process sees it act.
func (e *Engine) touchUser(ctx context.Context, did string) {
	if _, seen := e.users.load(did); seen {
		return
	}
	if err := e.store.TouchUser(ctx, did, e.now().UnixMilli()); err != nil {
		if venue.ErrorCode(err) != venue.EUNAVAILABLE { // a store away: the writer says so, once
			e.log.Warn("record user", "caller", did, "err", err)
		}
		return
	}
	e.users.store(did, true)
}

func (e *Engine) ms() int64 { return e.now().UnixMilli() }

// newHexID returns a fresh id as bare hex, for message and session ids.
func (e *Engine) newHexID() string {
	id := e.ids.next()
	return hex.EncodeToString(id[:])
}
