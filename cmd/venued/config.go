package main

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/runtime/outbound"
)

// Config is the venue's configuration: defaults, then the JSON config file,
// then VENUE_* environment variables, then flags, each overriding the last.
type Config struct {
	Listen             string            `json:"listen"`             // address to listen on; default 127.0.0.1:8080
	URL                string            `json:"url"`                // public base URL; default http://<listen address>
	Name               string            `json:"name"`               // venue name; default "Venue"
	Store              string            `json:"store"`              // "" temporary SQLite, a file path, or a postgres:// URL
	StoreWait          string            `json:"storeWait"`          // how long to wait at start for a PostgreSQL not reachable yet; default 30s, "0" none
	Seed               string            `json:"seed"`               // Ed25519 seed, 64 hex digits; default: kept in the store
	Workers            int               `json:"workers"`            // jobs executing at once; default 64
	CallerWorkers      int               `json:"callerWorkers"`      // jobs of one caller executing at once; default 3/4 of workers
	UploadedWorkers    int               `json:"uploadedWorkers"`    // uploaded operations executing at once; default uploadedWorkers()
	UploadedProcessors int               `json:"uploadedProcessors"` // processors uploaded operations compute on at once; default all but one, at least 1
	MaxJobs            int               `json:"maxJobs"`            // unfinished jobs this node holds at once; default 20000
	MaxCallerJobs      int               `json:"maxCallerJobs"`      // of them, one caller's; default 5000
	MaxJobBytes        int64             `json:"maxJobBytes"`        // bytes of input they hold together; default 256 MiB
	MaxCallerBytes     int64             `json:"maxCallerBytes"`     // of them, one caller's jobs'; default 64 MiB
	TestOps            *bool             `json:"testOps"`            // serve the engine's test operations (v/test/ops); default: on a loopback listener only
	JobTimeout         string            `json:"jobTimeout"`         // deadline of one job execution, e.g. "10m"
	JobRetention       string            `json:"jobRetention"`       // records of jobs that ended longer ago are deleted, e.g. "30d"; default: kept
	MaxContentSize     int64             `json:"maxContentSize"`     // largest asset content in bytes; default 1 GiB
	MaxBodyBytes       int64             `json:"maxBodyBytes"`       // largest JSON request body; default 16 MiB
	MaxBodiesBytes     int64             `json:"maxBodiesBytes"`     // bytes of request bodies held at once; default 256 MiB
	MaxUserValues      int64             `json:"maxUserValuesBytes"` // bytes of lattice values (paths and values) one user stores; default 1 GiB
	MaxUserAssets      int64             `json:"maxUserAssetsBytes"` // bytes of assets (metadata and content) one user stores; default 10 GiB
	BodyTimeout        string            `json:"bodyTimeout"`        // longest pause while a request body arrives, e.g. "30s" (the default)
	MaxConnections     int               `json:"maxConnections"`     // connections served at once; default maxConnections()
	Names              map[string]string `json:"names"`              // registered operation names → references
	LogLevel           string            `json:"logLevel"`           // debug, info, warn or error; default info
	LogFormat          string            `json:"logFormat"`          // text or json; default text
	Pprof              bool              `json:"pprof"`              // serve Go's profiler at /debug/pprof/; default off
	WasmMemoryMiB      int               `json:"wasmMemoryMiB"`      // memory limit of one Wasm operation instance; default 64
	WasmCacheDir       string            `json:"wasmCacheDir"`       // compiled-module cache; default <user cache dir>/venue/wasm, "off" for none
	WasmWaitCompile    bool              `json:"wasmWaitCompile"`    // a new module's calls wait for its compile instead of starting on the interpreter; default off
	AllowHosts         []string          `json:"allowHosts"`         // hosts operations may reach although they are private or loopback
	BlockHosts         []string          `json:"blockHosts"`         // hosts operations may never reach
	Auth               AuthConfig        `json:"auth"`               // tokens, sign-in providers and what anonymous callers may do
	MCP                MCPConfig         `json:"mcp"`                // the MCP door and bridged MCP servers
}

func defaultConfig() Config {
	return Config{Listen: "127.0.0.1:8080", Name: "Venue", LogLevel: "info", LogFormat: "text"}
}

// loadConfig builds the configuration from args and the environment.
// The config file is the first positional argument or --config.
func loadConfig(args []string, getenv func(string) string) (Config, error) {
	cfg := defaultConfig()
	fs := flag.NewFlagSet("venued", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("config", "", "path of a JSON config file")
	listen := fs.String("listen", "", "address to listen on (default 127.0.0.1:8080)")
	store := fs.String("store", "", "store: a file path for durable SQLite, or a postgres:// URL (default: temporary)")
	url := fs.String("url", "", "public base URL (default http://<listen address>)")
	name := fs.String("name", "", "venue name")
	if err := fs.Parse(args); err != nil {
		return cfg, usageError(err)
	}
	// Flags may follow the config file too: parse what comes after it.
	if rest := fs.Args(); len(rest) > 0 {
		if *file != "" {
			return cfg, usageError(fmt.Errorf("config file given twice: %s and %s", *file, rest[0]))
		}
		*file = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return cfg, usageError(err)
		}
		if fs.NArg() > 0 {
			return cfg, usageError(fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " ")))
		}
	}
	if *file != "" {
		if err := readConfigFile(*file, &cfg); err != nil {
			return cfg, err
		}
	}
	if err := applyEnv(&cfg, getenv); err != nil {
		return cfg, err
	}
	for _, f := range []struct{ flag, dst *string }{{listen, &cfg.Listen}, {store, &cfg.Store}, {url, &cfg.URL}, {name, &cfg.Name}} {
		if *f.flag != "" {
			*f.dst = *f.flag
		}
	}
	return cfg, fromEnv(cfg.validate(), getenv)
}

// fromEnv names the variable a value came from in each of validate's
// lines about it: they name the key of the config file ("jobTimeout"), and
// an operator who set VENUE_JOB_TIMEOUT went looking for it in a file
// there is none of.
func fromEnv(err error, getenv func(string) string) error {
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	for i, line := range lines {
		for k := range envKeys {
			if getenv(k) == "" {
				continue
			}
			if key := envKey(k); strings.HasPrefix(line, key+" ") || strings.HasPrefix(line, key+":") {
				lines[i] += " (set by " + k + ")"
			}
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// envKey is the config file's key for the variable k: VENUE_JOB_TIMEOUT is
// jobTimeout. VENUE_ANONYMOUS sets a key within auth, which its name
// does not say.
func envKey(k string) string {
	if k == "VENUE_ANONYMOUS" {
		return "auth.anonymous"
	}
	words := strings.Split(strings.ToLower(strings.TrimPrefix(k, "VENUE_")), "_")
	for i := 1; i < len(words); i++ {
		words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
	}
	return strings.Join(words, "")
}

func usageError(err error) error {
	return fmt.Errorf("%w\nusage: venued [config.json] [--config file] [--listen addr] [--store path|postgres://...] [--url base] [--name name]\n       venued token | openapi | version | help", err)
}

func readConfigFile(path string, cfg *Config) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// Go's words, "read .: is a directory", do not say which setting.
		return fmt.Errorf("config file %s is a directory: give the path of a JSON file, such as %s", path, filepath.Join(path, "venue.json"))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return fmt.Errorf("config file %s is empty: give one JSON object, such as {\"listen\": \"127.0.0.1:8080\"}", path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("config file %s: %s", path, configJSONError(b, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("config file %s: something follows the JSON object: give one object", path)
	}
	return nil
}

// configJSONError words a decoding error of the config file in its terms
// (keys, line and column) rather than Go's (struct fields and types).
func configJSONError(b []byte, err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := lineCol(b, syntax.Offset-1) // the offset counts the byte at fault
		return fmt.Sprintf("line %d, column %d: %s", line, col, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typ):
		line, _ := lineCol(b, typ.Offset) // the offset is the value's end: its line is what helps
		key := typ.Field
		if key == "" {
			return fmt.Sprintf("line %d: the file must hold one JSON object of settings, not a JSON %s", line, typ.Value)
		}
		return fmt.Sprintf("line %d: %s: want %s, not a JSON %s", line, key, kindWord(typ.Type.Kind()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too early: close every { and \""
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if path := unknownKey(b, reflect.TypeFor[Config]()); path != "" {
			key = strconv.Quote(path)
		}
		return "unknown key " + key + ": see the configuration table in README.md (keys are written as there, such as maxBodyBytes)"
	}
	return err.Error()
}

// lineCol is the line and column (from 1) of byte offset off of b.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	return line, int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// kindWord names what a setting of kind k is written as.
func kindWord(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Bool, reflect.Pointer:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// applyEnv applies VENUE_<KEY> overrides, one per config key.
func applyEnv(cfg *Config, getenv func(string) string) error {
	str := map[string]*string{"VENUE_LISTEN": &cfg.Listen, "VENUE_URL": &cfg.URL, "VENUE_NAME": &cfg.Name,
		"VENUE_STORE": &cfg.Store, "VENUE_STORE_WAIT": &cfg.StoreWait, "VENUE_SEED": &cfg.Seed, "VENUE_JOB_TIMEOUT": &cfg.JobTimeout, "VENUE_JOB_RETENTION": &cfg.JobRetention, "VENUE_BODY_TIMEOUT": &cfg.BodyTimeout,
		"VENUE_LOG_LEVEL": &cfg.LogLevel, "VENUE_ANONYMOUS": &cfg.Auth.Anonymous, "VENUE_LOG_FORMAT": &cfg.LogFormat, "VENUE_WASM_CACHE_DIR": &cfg.WasmCacheDir}
	for k, dst := range str {
		if v := getenv(k); v != "" {
			*dst = v
		}
	}
	for k, dst := range map[string]*[]string{"VENUE_ALLOW_HOSTS": &cfg.AllowHosts, "VENUE_BLOCK_HOSTS": &cfg.BlockHosts} {
		if v := getenv(k); v != "" {
			*dst = hostList(v)
		}
	}
	return errors.Join(applyEnvNumbers(cfg, getenv), applyEnvSwitches(cfg, getenv))
}

// envKeys are the VENUE_* variables the venue reads (applyEnv and
// applyEnvNumbers and applyEnvSwitches, each named in README's table), and
// those its tests and benchmark read, which a developer's shell may hold.
var envKeys = map[string]bool{"VENUE_LISTEN": true, "VENUE_URL": true, "VENUE_NAME": true, "VENUE_STORE": true, "VENUE_STORE_WAIT": true, "VENUE_SEED": true,
	"VENUE_WORKERS": true, "VENUE_CALLER_WORKERS": true, "VENUE_UPLOADED_WORKERS": true, "VENUE_UPLOADED_PROCESSORS": true, "VENUE_MAX_JOBS": true, "VENUE_MAX_CALLER_JOBS": true,
	"VENUE_MAX_JOB_BYTES": true, "VENUE_MAX_CALLER_BYTES": true, "VENUE_TEST_OPS": true, "VENUE_JOB_TIMEOUT": true, "VENUE_JOB_RETENTION": true,
	"VENUE_MAX_CONTENT_SIZE": true, "VENUE_MAX_USER_VALUES_BYTES": true, "VENUE_MAX_USER_ASSETS_BYTES": true, "VENUE_MAX_BODY_BYTES": true,
	"VENUE_MAX_BODIES_BYTES": true, "VENUE_BODY_TIMEOUT": true, "VENUE_MAX_CONNECTIONS": true, "VENUE_ALLOW_HOSTS": true, "VENUE_BLOCK_HOSTS": true, "VENUE_WASM_MEMORY_MIB": true,
	"VENUE_WASM_CACHE_DIR": true, "VENUE_WASM_WAIT_COMPILE": true, "VENUE_LOG_LEVEL": true, "VENUE_LOG_FORMAT": true, "VENUE_PPROF": true, "VENUE_ANONYMOUS": true,
	// read by the tests and the benchmark, not by the venue
	"VENUE_TEST_POSTGRES": true, "VENUE_BENCH_POSTGRES": true, "VENUE_BENCH_STORE": true}

// unknownEnv names the VENUE_* variables of environ (os.Environ's form)
// that the venue does not read: a misspelt one (VENUE_AUTH_ANONYMOUS for
// VENUE_ANONYMOUS, VENUE_MAX_BODY_SIZE) would otherwise leave its setting
// at the default without a word.
func unknownEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "VENUE_") && !envKeys[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// hostList splits a comma-separated list of hosts, as "a.example, b.example"
// is written too, dropping the spaces and empty items.
func hostList(v string) []string {
	var out []string
	for h := range strings.SplitSeq(v, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// applyEnvNumbers applies the numeric VENUE_* overrides. It names every
// bad one, in the order of their names: the maps are walked in random
// order, so stopping at the first named a different one at each try.
func applyEnvNumbers(cfg *Config, getenv func(string) string) error {
	var errs []error
	for k, dst := range map[string]*int64{"VENUE_MAX_CONTENT_SIZE": &cfg.MaxContentSize, "VENUE_MAX_BODY_BYTES": &cfg.MaxBodyBytes,
		"VENUE_MAX_BODIES_BYTES": &cfg.MaxBodiesBytes, "VENUE_MAX_JOB_BYTES": &cfg.MaxJobBytes, "VENUE_MAX_CALLER_BYTES": &cfg.MaxCallerBytes,
		"VENUE_MAX_USER_VALUES_BYTES": &cfg.MaxUserValues, "VENUE_MAX_USER_ASSETS_BYTES": &cfg.MaxUserAssets} {
		if v := getenv(k); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a positive whole number of bytes (or 0 for the default)", k, v))
				continue
			}
			*dst = n
		}
	}
	if v := getenv("VENUE_WASM_MEMORY_MIB"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n != 0 && (n < 4 || n > 4096) {
			errs = append(errs, fmt.Errorf("VENUE_WASM_MEMORY_MIB=%q: want a whole number of MiB from 4 to 4096 (or 0 for the default)", v))
		} else {
			cfg.WasmMemoryMiB = n
		}
	}
	for k, dst := range map[string]*int{"VENUE_WORKERS": &cfg.Workers, "VENUE_CALLER_WORKERS": &cfg.CallerWorkers,
		"VENUE_UPLOADED_WORKERS": &cfg.UploadedWorkers, "VENUE_UPLOADED_PROCESSORS": &cfg.UploadedProcessors, "VENUE_MAX_JOBS": &cfg.MaxJobs, "VENUE_MAX_CALLER_JOBS": &cfg.MaxCallerJobs,
		"VENUE_MAX_CONNECTIONS": &cfg.MaxConnections} {
		if v := getenv(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s=%q: want a positive whole number (or 0 for the default)", k, v))
				continue
			}
			*dst = n
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// applyEnvSwitches applies the true/false VENUE_* overrides.
func applyEnvSwitches(cfg *Config, getenv func(string) string) error {
	pprof, perr := envSwitch(getenv, "VENUE_PPROF")
	if pprof != nil {
		cfg.Pprof = *pprof
	}
	testOps, terr := envSwitch(getenv, "VENUE_TEST_OPS")
	if testOps != nil {
		cfg.TestOps = testOps
	}
	wait, werr := envSwitch(getenv, "VENUE_WASM_WAIT_COMPILE")
	if wait != nil {
		cfg.WasmWaitCompile = *wait
	}
	return errors.Join(perr, terr, werr)
}

// envSwitch reads a true/false variable; nil when it is unset.
func envSwitch(getenv func(string) string, k string) (*bool, error) {
	v := getenv(k)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, fmt.Errorf("%s=%q: want true or false", k, v)
	}
	return &b, nil
}

func (c Config) validate() error {
	var errs []error
	if c.Seed != "" {
		if b, err := hex.DecodeString(c.Seed); err != nil || len(b) != 32 {
			errs = append(errs, errors.New("seed: want 64 hex digits (a 32-byte Ed25519 seed)"))
		}
	}
	if c.JobTimeout != "" {
		if d, err := time.ParseDuration(c.JobTimeout); err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("jobTimeout %q: want a duration such as 10m or 90s", c.JobTimeout))
		}
	}
	if _, err := parseRetention(c.JobRetention); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseWait(c.StoreWait); err != nil {
		errs = append(errs, err)
	}
	if c.BodyTimeout != "" {
		if d, err := time.ParseDuration(c.BodyTimeout); err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("bodyTimeout %q: want a duration such as 30s", c.BodyTimeout))
		}
	}
	if err := c.Auth.validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.level(); err != nil {
		errs = append(errs, err)
	}
	if f := strings.ToLower(c.LogFormat); f != "text" && f != "json" { // any case, as logLevel
		errs = append(errs, fmt.Errorf("logFormat %q: want text or json", c.LogFormat))
	}
	if c.WasmMemoryMiB != 0 && (c.WasmMemoryMiB < 4 || c.WasmMemoryMiB > 4096) {
		errs = append(errs, fmt.Errorf("wasmMemoryMiB %d: want 4 to 4096", c.WasmMemoryMiB))
	}
	for _, n := range []struct {
		key   string
		value int64
	}{{"workers", int64(c.Workers)}, {"callerWorkers", int64(c.CallerWorkers)}, {"uploadedWorkers", int64(c.UploadedWorkers)}, {"uploadedProcessors", int64(c.UploadedProcessors)}, {"maxJobs", int64(c.MaxJobs)}, {"maxCallerJobs", int64(c.MaxCallerJobs)}, {"maxConnections", int64(c.MaxConnections)},
		{"maxJobBytes", c.MaxJobBytes}, {"maxCallerBytes", c.MaxCallerBytes}, {"maxContentSize", c.MaxContentSize}, {"maxBodyBytes", c.MaxBodyBytes},
		{"maxBodiesBytes", c.MaxBodiesBytes}, {"maxUserValuesBytes", c.MaxUserValues}, {"maxUserAssetsBytes", c.MaxUserAssets}} {
		if n.value < 0 {
			errs = append(errs, fmt.Errorf("%s %d: want a positive whole number (or 0 for the default)", n.key, n.value))
		}
	}
	if body := cmp.Or(c.MaxBodyBytes, 16<<20); c.MaxBodiesBytes > 0 && c.MaxBodiesBytes < body {
		errs = append(errs, fmt.Errorf("maxBodiesBytes %d is below maxBodyBytes %d: a body of the largest size could never be read", c.MaxBodiesBytes, body))
	}
	if content, assets := cmp.Or(c.MaxContentSize, runtime.DefaultMaxContentSize), cmp.Or(c.MaxUserAssets, defaultMaxUserAssets); assets < content {
		errs = append(errs, fmt.Errorf("maxUserAssetsBytes %d is below maxContentSize %d: content of the largest size could never be stored", assets, content))
	}
	if c.URL != "" {
		if _, err := runtime.DIDWeb(c.URL); err != nil {
			errs = append(errs, fmt.Errorf("url: %s", venue.ErrorMessage(err)))
		}
	}
	errs = append(errs, c.MCP.validate())
	if err := outbound.CheckHosts(c.AllowHosts, false); err != nil {
		errs = append(errs, fmt.Errorf("allowHosts: %w", err))
	}
	if err := outbound.CheckHosts(c.BlockHosts, true); err != nil {
		errs = append(errs, fmt.Errorf("blockHosts: %w", err))
	}
	return errors.Join(errs...)
}

// defaultMaxUserAssets is maxUserAssetsBytes unset: 10 GiB of assets per user.
const defaultMaxUserAssets = 10 << 30

func (c Config) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return l, fmt.Errorf("logLevel %q: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

func (c Config) seed() []byte {
	b, _ := hex.DecodeString(c.Seed)
	if len(b) == 0 {
		return nil
	}
	return b
}

// wasmCache is where compiled modules are cached across restarts: compiling
// the built-in module takes about a second, loading it from the cache about
// 40 ms. "" means no cache.
func (c Config) wasmCache() string {
	switch c.WasmCacheDir {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "venue", "wasm")
	}
	return c.WasmCacheDir
}

// wasmPages is the memory limit in 64 KiB Wasm pages (0: the host's default).
func (c Config) wasmPages() uint32 {
	return uint32(c.WasmMemoryMiB) * 16
}

func (c Config) jobTimeout() time.Duration {
	d, _ := time.ParseDuration(c.JobTimeout)
	return d
}

func (c Config) jobRetention() time.Duration {
	d, _ := parseRetention(c.JobRetention)
	return d
}

// storeWait is how long the start waits for a PostgreSQL that cannot be
// reached yet.
func (c Config) storeWait() time.Duration {
	d, _ := parseWait(c.StoreWait)
	return d
}

// parseWait reads storeWait: a Go duration, "0" for none, 30s if empty.
func parseWait(s string) (time.Duration, error) {
	switch s {
	case "":
		return 30 * time.Second, nil
	case "0":
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > 24*time.Hour {
		return 0, fmt.Errorf("storeWait %q: want a duration such as 30s or 2m (at most 24h), or 0 not to wait", s)
	}
	return d, nil
}

// parseRetention reads jobRetention: a Go duration ("720h") or whole days
// ("30d"), at least a minute; empty or "0" keeps every record.
func parseRetention(s string) (time.Duration, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := parseDuration(s)
	if err != nil || d < time.Minute {
		return 0, fmt.Errorf("jobRetention %q: want a duration of at least a minute such as 30d or 720h, or 0 to keep every job record", s)
	}
	return d, nil
}

// parseDuration reads a Go duration ("720h") or whole days ("30d"), at
// most a hundred years of them, as operators write retentions and token
// lifetimes.
func parseDuration(s string) (time.Duration, error) {
	days, ok := strings.CutSuffix(s, "d")
	if !ok {
		return time.ParseDuration(s)
	}
	n, err := strconv.Atoi(days)
	if err == nil && n > 100*365 {
		err = errors.New("too long")
	}
	return time.Duration(n) * 24 * time.Hour, err
}

func (c Config) bodyTimeout() time.Duration {
	d, _ := time.ParseDuration(c.BodyTimeout)
	return d
}

// testOps reports whether the engine's test operations are served. Anyone
// may invoke them, and v/test/ops/never holds a worker until the job
// timeout, so by default only a venue on loopback (the README walk-through)
// has them: its listener and its public url both, as for anonymous access,
// since a proxy in front of a loopback listener serves the world.
func (c Config) testOps() bool {
	if c.TestOps != nil {
		return *c.TestOps
	}
	return loopback(c.Listen) && (c.URL == "" || loopbackURL(c.URL))
}

// uploadedWorkers is how many uploaded operations may execute at once
// (the engine keeps a quarter of the workers from them in any case). By
// default two per processor, since guests that compute gain nothing from
// more (they share uploadedProcessors), and no more than a GiB of guest
// memory at wasmMemoryMiB each (48 guests filling their 64 MiB took the
// process to 7-10 GB, which GOGC=400 lets grow).
func (c Config) uploadedWorkers() int {
	if c.UploadedWorkers > 0 {
		return c.UploadedWorkers
	}
	return max(2, min(2*goruntime.GOMAXPROCS(0), 1024/cmp.Or(c.WasmMemoryMiB, 64)))
}

// processorsOver says, when uploadedProcessors asks for more processors
// than Go runs on, that it gets them all ("" otherwise): valid, as a file
// may serve machines of several sizes, but worth a warning.
func (c Config) processorsOver() string {
	if procs := goruntime.GOMAXPROCS(0); c.UploadedProcessors > procs {
		return fmt.Sprintf("uploadedProcessors %d is above the %d processors Go runs on (GOMAXPROCS): uploaded code computes on all %d, and the venue keeps none to itself", c.UploadedProcessors, procs, procs)
	}
	return ""
}

// looseBounds names the per-caller bounds set above the venue's own, which
// the engine lowers to them: valid, but likely a mistake worth a warning.
func (c Config) looseBounds() []string {
	var out []string
	if c.Workers > 0 && c.CallerWorkers > c.Workers {
		out = append(out, fmt.Sprintf("callerWorkers %d is above workers %d", c.CallerWorkers, c.Workers))
	}
	if c.MaxJobs > 0 && c.MaxCallerJobs > c.MaxJobs {
		out = append(out, fmt.Sprintf("maxCallerJobs %d is above maxJobs %d", c.MaxCallerJobs, c.MaxJobs))
	}
	if c.MaxJobBytes > 0 && c.MaxCallerBytes > c.MaxJobBytes {
		out = append(out, fmt.Sprintf("maxCallerBytes %d is above maxJobBytes %d", c.MaxCallerBytes, c.MaxJobBytes))
	}
	return out
}

// maxConnections bounds the connections served at once (connLimit): as
// set, or half the process's open files (the rest are for the store,
// outbound calls and logs), at most 10,000.
func (c Config) maxConnections() int {
	if c.MaxConnections > 0 {
		return c.MaxConnections
	}
	if n := openFiles(); n > 0 {
		return max(16, min(10_000, n/2))
	}
	return 10_000
}

// callerWorkers is how many jobs of one caller may execute at once: by
// default three quarters of the workers, so one caller (the shared
// anonymous identity above all) always leaves a quarter to everyone else.
func (c Config) callerWorkers() int {
	if c.CallerWorkers > 0 {
		return c.CallerWorkers
	}
	workers := c.Workers
	if workers <= 0 {
		workers = 64 // the engine's default
	}
	return max(1, workers*3/4)
}
