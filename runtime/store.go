package runtime

import (
	"context"
	"io"

	venue "github.com/gridvenue/venue"
)

// Store is everything the engine keeps. The sql package implements it over
// SQLite and Postgres; one test suite (sql/storetest) holds both to this
// contract. Methods return *venue.Error with ENOTFOUND where they say so and
// wrap anything else with context.
type Store interface {
	JobStore
	AssetStore
	ContentStore
	SecretStore
	ValueStore
	MetaStore
	UserStore
	TokenStore
	Close() error
}

// JobRow is a job record as stored: the columns the store indexes and the
// record's JSON, which the store keeps byte for byte.
type JobRow struct {
	ID      venue.JobID
	Owner   string // the caller DID that owns the job
	Status  venue.JobStatus
	Version int64 // 1 for a new job, +1 per transition
	Created int64 // ms
	Updated int64 // ms
	Record  []byte
	// Stored says the store holds a row of the job already, so this one
	// may only replace it: if none is there, another node deleted the job,
	// and inserting the row would bring it back.
	Stored bool
}

// JobStore keeps job records and the messages clients send to jobs.
type JobStore interface {
	// WriteJobs stores rows in one transaction and reports, per row, whether
	// it was applied. A row with no stored job is inserted, unless it is
	// marked Stored (then it is not applied). A row replaces a
	// stored job only if its Version is greater and the stored Status is not
	// terminal, so a terminal record is immutable and, of two writers racing
	// to the same version, the first wins. Every applied row is durable when
	// WriteJobs returns. Rows hold distinct ids.
	WriteJobs(ctx context.Context, rows []JobRow) ([]bool, error)

	// Job returns the stored row. Returns ENOTFOUND if there is none.
	Job(ctx context.Context, id venue.JobID) (JobRow, error)

	// ListJobs returns the owner's jobs in id order (oldest first), skipping
	// offset and returning at most limit (limit < 0 means all), with the
	// owner's total. Records are filled only if withRecords is set.
	ListJobs(ctx context.Context, owner string, offset, limit int, withRecords bool) ([]JobRow, int, error)

	// JobStatusCounts counts the owner's jobs by status, from one snapshot;
	// a status none of them has is left out.
	JobStatusCounts(ctx context.Context, owner string) (map[venue.JobStatus]int, error)

	// DeleteJob removes the owner's job and its messages.
	// Returns ENOTFOUND if the owner has no such job.
	DeleteJob(ctx context.Context, owner string, id venue.JobID) error

	// PruneJobs deletes, with their messages, up to limit finished jobs
	// (of a terminal status) last updated before the ms time before,
	// lowest ids first, and returns their ids. A job id begins with the ms
	// of its creation (six bytes, big-endian), so only ids below before's
	// need be looked at.
	PruneJobs(ctx context.Context, before int64, limit int) ([]venue.JobID, error)

	// AddJobMessage appends a message to the job's queue and returns how many
	// messages are queued after it.
	AddJobMessage(ctx context.Context, id venue.JobID, msg []byte) (int, error)

	// TakeJobMessage removes and returns the oldest queued message, or nil
	// if none is queued.
	TakeJobMessage(ctx context.Context, id venue.JobID) ([]byte, error)
	// DropJobMessages deletes the messages still queued for a job that
	// has ended.
	DropJobMessages(ctx context.Context, id venue.JobID) error

	// UnfinishedJobs returns every job whose status is not terminal, in id
	// order, with records. A single-node venue fails them at start: whatever
	// ran them is gone.
	UnfinishedJobs(ctx context.Context) ([]JobRow, error)
}

// AssetStore keeps asset metadata, byte for byte as registered.
type AssetStore interface {
	// PutAsset stores meta under id for owner unless id is already stored,
	// and reports whether it was new. Metadata is immutable: the id is its
	// hash. New metadata counts to owner's assets: past the store's bound,
	// it fails with ETOOLARGE.
	PutAsset(ctx context.Context, id venue.AssetID, owner string, meta []byte, created int64) (bool, error)

	// Asset returns the metadata. Returns ENOTFOUND if there is none.
	Asset(ctx context.Context, id venue.AssetID) ([]byte, error)

	// ListAssets returns asset ids in id order, skipping offset and returning
	// at most limit (limit < 0 means all), with the total count.
	ListAssets(ctx context.Context, offset, limit int) ([]venue.AssetID, int, error)
}

// ContentStore keeps asset content, addressed by the SHA-256 of its bytes.
// Content is streamed in and out; neither side holds it whole in memory.
type ContentStore interface {
	// NewContent starts an upload by owner of content whose hash the caller
	// expects to be sha256. Nothing is visible to Content until Commit; Abort
	// (or a failed Commit) leaves nothing behind. Content not stored before
	// counts to owner's assets: past the store's bound, NewContent, Write or
	// Commit fails with ETOOLARGE.
	NewContent(ctx context.Context, sha256 [32]byte, owner string) (ContentUpload, error)

	// Content returns a reader over stored content and its size; it seeks,
	// so that a download can resume part way. Returns ENOTFOUND if there is
	// none. The caller closes the reader.
	Content(ctx context.Context, sha256 [32]byte) (io.ReadSeekCloser, int64, error)
}

// ContentUpload receives content in order. The engine hashes what it writes
// and calls Commit only if the hash matches.
type ContentUpload interface {
	io.Writer
	Commit(ctx context.Context) error
	Abort(ctx context.Context) error
}

// SecretStore keeps sealed (encrypted) secret values per owner. It never sees
// a plaintext value.
type SecretStore interface {
	// PutSecret creates or replaces the owner's secret. With most > 0 a
	// new secret is refused (ECONFLICT) when the owner keeps most already,
	// counted and stored in one turn, on every node.
	PutSecret(ctx context.Context, owner, name string, sealed []byte, updated int64, most int) error

	// Secret returns the sealed value and when it was stored.
	// Returns ENOTFOUND if the owner has no such secret.
	Secret(ctx context.Context, owner, name string) ([]byte, int64, error)

	// SecretNames returns the owner's secret names, sorted.
	SecretNames(ctx context.Context, owner string) ([]string, error)

	// SecretTimes returns the owner's secret names, sorted, with when each
	// was stored.
	SecretTimes(ctx context.Context, owner string) ([]SecretTime, error)

	// DeleteSecret removes the owner's secret.
	// Returns ENOTFOUND if the owner has no such secret.
	DeleteSecret(ctx context.Context, owner, name string) error
}

// ValueRow is one stored lattice value: a JSON value at a path such as
// "w/notes/today". Among one owner's rows no path is a prefix (at a segment
// boundary) of another: a value is either stored whole at a path or
// assembled from the rows below it.
type ValueRow struct {
	Path  string
	Value []byte
	Size  int // len(Value), also when the value was left out
}

// ValueStore keeps the per-owner lattice namespaces w, o and g.
type ValueStore interface {
	// ValueRows calls fn with each of the owner's rows related to path: the
	// row at path, a row at any ancestor of path, and every row below path,
	// in path order: ancestors first, and the rows of each map's entry
	// together. With sizesOnly the rows carry their Size but no Value. An
	// error from fn stops the scan and is returned.
	ValueRows(ctx context.Context, owner, path string, sizesOnly bool, fn func(ValueRow) error) error

	// UpdateValues runs fn over the rows related to path, in path order,
	// inside a transaction that keeps other writers of those rows out, then
	// deletes the paths and stores the rows fn returns. If fn fails nothing
	// changes.
	UpdateValues(ctx context.Context, owner, path string,
		fn func(rows []ValueRow) (put []ValueRow, del []string, err error)) error

	// UpdatePaths is UpdateValues for changes that need no row below path
	// one by one: those rows, if any, come folded into one BelowRow, and
	// deleting its path deletes them all. Replacing or deleting a large
	// subtree so never loads it.
	UpdatePaths(ctx context.Context, owner, path string,
		fn func(rows []ValueRow) (put []ValueRow, del []string, err error)) error

	// FoldedRows is ValueRows, sizes and all, with the rows below
	// fold.Path, a path below path, left out but for those at or below
	// the paths of fold.Keep: the rest come as one BelowRow(fold.Path) if
	// there are any. The rows at fold.Skip are left out altogether.
	FoldedRows(ctx context.Context, owner, path string, fold Fold, fn func(ValueRow) error) error

	// UpdateFolded is UpdateValues over the rows FoldedRows gives.
	// Deleting the BelowRow's path deletes every row below fold.Path,
	// kept ones too, before the rows put are stored.
	UpdateFolded(ctx context.Context, owner, path string, fold Fold,
		fn func(rows []ValueRow) (put []ValueRow, del []string, err error)) error
}

// Fold names the rows of a subtree a read or update leaves out: those
// below Path, but for those at or below each path of Keep (each below
// Path, none below another), and the rows at the paths of Skip (each
// below the subtree's path, outside Path's). An agent's record is read and
// changed so without the sessions it does not touch, however many it has
// gathered, and without its timeline unless it appends to it.
type Fold struct {
	Path string
	Keep []string
	Skip []string
}

// BelowRow stands for every row below path in UpdatePaths: its path,
// path + "/", is never a stored row's (no segment is empty).
func BelowRow(path string) ValueRow { return ValueRow{Path: path + "/"} }

// MetaStore keeps venue-wide settings such as the venue's key.
type MetaStore interface {
	// Meta returns the value under key. Returns ENOTFOUND if there is none.
	Meta(ctx context.Context, key string) ([]byte, error)

	// PutMetaIfAbsent stores value under key unless one is stored, and
	// returns the stored value. Two nodes starting at once agree on one.
	PutMetaIfAbsent(ctx context.Context, key string, value []byte) ([]byte, error)

	// DeleteMeta removes the value under key, if any.
	DeleteMeta(ctx context.Context, key string) error
}

// UserStore knows which callers have used the venue.
type UserStore interface {
	// TouchUser records that did has used the venue, once.
	TouchUser(ctx context.Context, did string, now int64) error

	// HasUser reports whether did has used the venue.
	HasUser(ctx context.Context, did string) (bool, error)

	// CountUsers returns how many callers have used the venue.
	CountUsers(ctx context.Context) (int, error)
}

// TokenStore remembers the one-time tokens the venue has accepted, for
// every node sharing the store, so that none is accepted twice, and the
// UCANs revoked before they expire.
type TokenStore interface {
	// UseTokenID records key until expires (ms) and reports whether it was
	// new: false if key is recorded with an expiry after now. Of callers
	// racing with one key, exactly one gets true. Records that have expired
	// are forgotten.
	UseTokenID(ctx context.Context, key []byte, expires, now int64) (bool, error)

	// TokenIDsLive reports whether any of keys is recorded with an expiry
	// after now: how a revoked UCAN (recorded until it expires) is known.
	TokenIDsLive(ctx context.Context, keys [][]byte, now int64) (bool, error)
}

// JobNote tells a node that another node changed a job (Kind "job") or
// queued a message for it (Kind "message"), or that notes may have been
// missed (Kind NoteResync: the store's connection came back).
type JobNote struct {
	Kind    string
	ID      venue.JobID
	Status  venue.JobStatus
	Version int64
}

// Notifier is implemented by stores that several venue processes share
// (Postgres). WriteJobs and AddJobMessage of every other process reach fn;
// a process's own writes do not. The engine uses it to stop, resume and
// answer jobs it runs and to feed SSE streams on every node.
type Notifier interface {
	ListenJobs(ctx context.Context, fn func(JobNote)) error
}

// SecretTime is a secret's name and when it was stored, in ms.
type SecretTime struct {
	Name    string `db:"name"`
	Updated int64  `db:"updated"`
}
