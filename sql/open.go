package sql

import (
	"context"
	"crypto/rand"
	dbsql "database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

var (
	_ runtime.Store    = (*Store)(nil)
	_ runtime.Notifier = (*Store)(nil)
)

// Options configure Open. The zero value is the default.
type Options struct {
	// Logger receives what the store cannot return to a caller: listener
	// reconnects and undecodable notes. Nil discards.
	Logger *slog.Logger

	// NodeID names this process in the notes it publishes, so that its own
	// listener skips them. "" picks a random id.
	NodeID string

	// MaxUserValuesBytes bounds the bytes of lattice values (paths and
	// values) one owner stores; a write that would take an owner past it
	// fails with ETOOLARGE. 0 is no bound.
	MaxUserValuesBytes int64

	// MaxUserAssetsBytes bounds the bytes of assets one owner stores: the
	// metadata they register and the content they upload that was not
	// stored before. What would take an owner past it fails with
	// ETOOLARGE. 0 is no bound.
	MaxUserAssetsBytes int64

	// ConnectWait is how long Open waits for a PostgreSQL that cannot be
	// reached yet (started beside the venue, restarting), trying again
	// every second; 0 fails at once.
	ConnectWait time.Duration
}

// Store is the venue's store over SQLite or Postgres. It is safe for
// concurrent use.
type Store struct {
	d    dialect
	w    *sqlx.DB // writes; on SQLite one connection, so writers queue in Go
	r    *sqlx.DB // reads; on Postgres the same pool as w
	log  *slog.Logger
	node string
	dsn  string // the Postgres DSN, for listeners

	maxValues int64         // Options.MaxUserValuesBytes
	maxAssets int64         // Options.MaxUserAssetsBytes
	wait      time.Duration // Options.ConnectWait

	tmpDir string   // the ephemeral store's directory, removed by Close
	lock   *os.File // a durable SQLite store's lock (lockFile), released by Close

	upserts []*dbsql.Stmt // see upsertFor
	replace *dbsql.Stmt   // replaceSQL (SQLite)
	guarded struct {      // see guardedUpsert
		mu     sync.Mutex
		stmts  [2 * upsertRows]*dbsql.Stmt
		closed bool
	}
	valueWrites valueWrites // see storeValues
	reads       reads       // see prepared
	peers       *peers      // other nodes heard from (Postgres)
	channel     string      // the notify channel of this store's schema (Postgres)

	tokenSweep atomic.Int64 // when UseTokenID last deleted expired records (ms)

	mu        sync.Mutex
	closed    bool
	done      chan struct{} // closed by Close to stop listeners
	listeners sync.WaitGroup
	announced bool // a listener said hello, so Close says goodbye
	closeOnce sync.Once
	closeErr  error
}

// Open opens the store named by dsn and brings its schema up to date.
// dsn "" is SQLite in a fresh temporary directory that Close removes; a
// postgres:// or postgresql:// URL, or a key=value DSN (IsPostgresDSN), is
// Postgres; anything else is the path of a durable SQLite file
// (a "file:" prefix is allowed), whose directory is created if missing.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	s := &Store{log: opts.Logger, node: opts.NodeID, maxValues: opts.MaxUserValuesBytes, maxAssets: opts.MaxUserAssetsBytes, wait: opts.ConnectWait, done: make(chan struct{}), peers: newPeers()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.node == "" {
		s.node = randomHex(8)
	}
	var err error
	what := "store" // how a failure names the store
	switch {
	case dsn == "":
		err = s.openTemp(ctx)
	case IsPostgresDSN(dsn):
		err = s.openPostgres(ctx, dsn)
	case mistypedPostgres(dsn):
		// postgres:/h/db would otherwise be a SQLite file, in directories
		// named after the URL (its password too), and each node its own.
		err = errors.New("the store starts as a PostgreSQL URL but is not one: write it postgres://user:password@host:port/dbname (lower case, two slashes)")
	case strings.Contains(dsn, "://") && !strings.HasPrefix(dsn, "file:"):
		// A mistyped postgres:// would otherwise be a new SQLite file named
		// after the URL, and each node its own database.
		scheme, _, _ := strings.Cut(dsn, "://")
		err = fmt.Errorf("unknown store scheme %q: give postgres:// (or postgresql://) for PostgreSQL, or a file path for SQLite", scheme)
	default:
		what = "store " + strings.TrimPrefix(dsn, "file:")
		err = s.openFile(ctx, dsn)
	}
	if err == nil {
		err = s.migrate(ctx)
	}
	if err == nil {
		err = s.dropStaleUploads(ctx)
	}
	if err == nil {
		err = s.prepareUpserts(ctx)
	}
	if err == nil {
		err = s.prepareValueWrites(ctx)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open %s: %w", what, err), s.Close())
	}
	return s, nil
}

// mistypedPostgres reports whether dsn starts with a PostgreSQL URL's
// scheme, in any case, without being one.
func mistypedPostgres(dsn string) bool {
	lower := strings.ToLower(dsn)
	return !IsPostgresDSN(dsn) && (strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:"))
}

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name }

// FlushParallelism returns how many WriteJobs calls the engine should run
// concurrently for the best throughput: 1 on SQLite, whose single writer
// would only queue more, and 8 on Postgres, which overlaps commits (see
// postgresDialect).
func (s *Store) FlushParallelism() int { return s.d.flush }

// Close stops listeners, closes the pools and removes the ephemeral store's
// directory. Calling it again returns the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		say := s.listening()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		if say {
			// Best effort: the others stop notifying for us at once rather
			// than when our hellos run out.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			s.announce(ctx, true)
			cancel()
		}
		close(s.done)
		s.listeners.Wait()
		errs := []error{s.closeUpserts(), s.valueWrites.close(), s.closeReads()}
		if s.r != nil && s.r != s.w {
			errs = append(errs, s.r.Close())
		}
		if s.w != nil {
			errs = append(errs, s.w.Close())
		}
		if s.tmpDir != "" {
			errs = append(errs, os.RemoveAll(s.tmpDir))
		}
		if s.lock != nil {
			errs = append(errs, s.lock.Close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// track counts a new listener unless the store is closing.
func (s *Store) track() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.listeners.Add(1)
	s.announced = s.d.postgres()
	return true
}

func (s *Store) listening() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.announced
}

func (s *Store) openTemp(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "venue-store-*")
	if err != nil {
		return err
	}
	s.tmpDir = dir
	// No other process ever opens this file, so SQLite's unix-excl VFS:
	// it keeps the WAL index in this process's memory rather than in a
	// shared -shm file, and takes no file locks on it per transaction (six
	// fcntl calls per commit, a quarter of a one-row commit's cost).
	return s.openSQLite(ctx, filepath.Join(dir, "venue.db"), url.Values{"vfs": {"unix-excl"}}, false)
}

func (s *Store) openFile(ctx context.Context, dsn string) error {
	path, extra, err := sqlitePath(dsn)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if s.lock, err = lockFile(path); err != nil {
		return err
	}
	return readonlyHint(s.openSQLite(ctx, path, extra, true), filepath.Dir(path))
}

// readonlyHint says what to fix when SQLite finds its store read-only: the
// file can be writable while its directory is not, where SQLite keeps the
// -wal and -shm files, and its own words name neither.
func readonlyHint(err error, dir string) error {
	if err == nil {
		return err
	}
	if strings.Contains(err.Error(), "file is not a database") {
		return fmt.Errorf("%w: the store's file, or the -wal file beside it, is not a SQLite database (another program's file, or damaged): give the venue a new file, or one it made", err)
	}
	if strings.Contains(err.Error(), "readonly database") {
		return fmt.Errorf("%w: SQLite writes the store's file and, beside it, its -wal and -shm files: make the file and its directory %s writable by the venue's user", err, dir)
	}
	if strings.Contains(err.Error(), "unable to open database file") {
		// SQLITE_CANTOPEN once the file itself is open (lockFile opened
		// it): the -wal or -shm file beside it cannot be opened or made,
		// typically left by a venue run as another user (root).
		return fmt.Errorf("%w: SQLite opens, beside the store's file, its -wal and -shm files: make the directory %s and any -wal and -shm files in it (a venue run as another user, such as root, leaves them its own) writable by the venue's user", err, dir)
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
