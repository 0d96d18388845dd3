package wasm

import (
	"log/slog"
	"runtime"
	"time"
)

// Config tunes a Host. A zero value means the documented default.
type Config struct {
	MemoryLimitPages uint32        // linear memory per instance, in 64 KiB pages; default 1024 (64 MiB)
	MaxOutput        int           // bytes of one operation's output; default 16 MiB
	MaxModuleSize    int           // bytes of one module; default 64 MiB
	MaxModules       int           // compiled modules kept, least recently used dropped first (the venue's own never); default 32
	MaxCompiles      int           // modules compiled at once, the rest wait their turn; default half of GOMAXPROCS, at least 1 (each may use two goroutines: compileWorkers)
	Processors       int           // calls running uploaded code, or the venue's own for over 2 ms, at once (cpugate.go); default GOMAXPROCS less one, at least 1; at most GOMAXPROCS
	PoolSize         int           // idle instances kept per pool; default 16
	MaxInstances     int           // live instances of all pools and commands together; default 64
	IdleTimeout      time.Duration // an instance idle this long is closed; default 2 minutes
	CacheDir         string        // directory of wazero's on-disk compilation cache; "" keeps none
	CacheMaxBytes    int64         // size the on-disk cache is pruned back under (diskcache.go); default 1 GiB
	Logger           *slog.Logger  // receives guests' log lines when no job is running; nil discards
	WaitForCompile   bool          // a new module's calls wait for its compile, instead of running on the interpreter meanwhile (tiers.go)
}

func (c *Config) setDefaults() {
	if c.MemoryLimitPages == 0 || c.MemoryLimitPages > 65536 {
		c.MemoryLimitPages = 1024
	}
	positive(&c.MaxOutput, 16<<20)
	positive(&c.MaxModuleSize, 64<<20)
	positive(&c.MaxModules, 32)
	positive(&c.MaxCompiles, max(1, runtime.GOMAXPROCS(0)/2))
	positive(&c.Processors, max(1, runtime.GOMAXPROCS(0)-1))
	c.Processors = min(c.Processors, runtime.GOMAXPROCS(0))
	// Making an instance of a Go guest costs about 5 ms, a warm call 20 µs,
	// and an idle one a few MiB: a pool keeps what a busy spell needed, so
	// that the spell's next calls do not each make and close an instance,
	// and the sweep closes what stays idle for IdleTimeout.
	positive(&c.PoolSize, 16)
	positive(&c.MaxInstances, 64)
	if c.CacheMaxBytes <= 0 {
		c.CacheMaxBytes = 1 << 30
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

func positive(v *int, d int) {
	if *v <= 0 {
		*v = d
	}
}

// memoryLimit is the most linear memory an instance may have, in bytes.
func (c *Config) memoryLimit() uint64 { return uint64(c.MemoryLimitPages) << 16 }

// Fixed bounds on what crosses the sandbox's edge. They protect the host,
// not the guest, so they are not configurable.
const (
	maxHostIO      = 16 << 20 // a host call's request or result
	maxErrorText   = 64 << 10 // a guest's error message, as kept in the job record
	maxStderr      = 4 << 10  // stderr kept per call, for crash and exit messages
	maxLogText     = 4 << 10  // one log message
	maxLogsPerCall = 1000     // log messages one call may emit
	minAllocSize   = 4 << 10  // smallest buffer asked of venue_alloc
)
