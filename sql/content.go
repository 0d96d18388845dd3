package sql

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	dbsql "database/sql"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// chunkSize is the unit content is stored and read in: large enough that a
// chunk's statement costs little beside its bytes, small enough that writing
// one holds SQLite's write lock only briefly and a reader buffers little.
const chunkSize = 256 << 10

// staleUpload is the age after which, on Postgres, Open (and every node
// listening, every staleSweep) takes a staged upload for a crashed node's
// and drops it. Other nodes may be uploading, so only old staging goes; an
// upload still running after that long loses its staging and its Commit
// fails. On SQLite, which one process owns, Open drops all staging: none of
// it can belong to a live upload.
const (
	staleUpload = 24 * time.Hour
	staleSweep  = time.Hour
)

// errFinished is returned by an upload used after Commit or Abort.
var errFinished = errors.New("content upload already finished")

// NewContent starts an upload for owner. Chunks are staged under a random
// upload id as they fill, each in its own short statement; Commit publishes
// them under sha256 without copying them. Content not stored before counts
// to owner's assets: an upload that would take owner past
// MaxUserAssetsBytes fails with ETOOLARGE as soon as it does, here when
// owner has no room left, in Write once it has sent more than the room.
func (s *Store) NewContent(ctx context.Context, sha [32]byte, owner string) (runtime.ContentUpload, error) {
	u := &upload{s: s, ctx: ctx, id: make([]byte, 16), want: sha, h: sha256.New(), owner: owner, room: -1}
	if err := u.measureRoom(ctx); err != nil {
		return nil, err
	}
	rand.Read(u.id)
	q := s.d.q("INSERT INTO content_uploads (id, created) VALUES (?, ?)")
	if _, err := s.w.ExecContext(ctx, q, u.id, time.Now().UnixMilli()); err != nil {
		return nil, wrap(ctx, err, "start content upload")
	}
	return u, nil
}

// measureRoom sets the bytes u may stage before it is sure to pass its
// owner's bound, when there is a bound and the content is not stored
// already (stored content costs nothing). Commit checks the bound again:
// other uploads of the owner may finish first.
func (u *upload) measureRoom(ctx context.Context) error {
	s := u.s
	if s.maxAssets <= 0 {
		return nil
	}
	var stored int
	err := s.r.QueryRowContext(ctx, s.d.q("SELECT count(*) FROM content WHERE sha256 = ?"), u.want[:]).Scan(&stored)
	if err != nil || stored > 0 {
		return wrap(ctx, err, "look up content %x", u.want)
	}
	used, err := s.assetsUsage(ctx, u.owner)
	if err != nil {
		return wrap(ctx, err, "read the assets usage of %s", u.owner)
	}
	// Clamped: a race of the owner's commits can leave used past the bound,
	// and a negative room would read as no bound. Empty content takes no
	// room, so it is stored even when there is none.
	if u.room = max(s.maxAssets-used, 0); u.room == 0 && u.want != emptySHA256 {
		return u.tooLarge(used)
	}
	return nil
}

// emptySHA256 is the hash of empty content.
var emptySHA256 = sha256.Sum256(nil)

func (u *upload) tooLarge(used int64) error {
	return venue.Errorf(venue.ETOOLARGE, "the assets you store (metadata and content) are %d bytes, and this content would take them past the %d bytes one user may store: ask the venue's operator to raise maxUserAssetsBytes",
		used, u.s.maxAssets)
}

// upload is a runtime.ContentUpload. It hashes what it is given, so content
// never lands under a hash it does not have even if a caller errs.
type upload struct {
	s     *Store
	ctx   context.Context // NewContent's: Write has none of its own
	id    []byte
	want  [32]byte
	h     hash.Hash
	owner string
	room  int64  // bytes that fit in owner's bound; -1 is no bound
	buf   []byte // the chunk being filled
	n     int    // chunks staged
	size  int64
	err   error // the first failure, or errFinished
}

// Write stages p, a chunk at a time as chunks fill.
func (u *upload) Write(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	if u.room >= 0 && u.size+int64(len(u.buf))+int64(len(p)) > u.room {
		u.err = u.tooLarge(u.s.maxAssets - u.room)
		return 0, u.err
	}
	written := 0
	for len(p) > 0 {
		if u.buf == nil {
			u.buf = make([]byte, 0, chunkSize)
		}
		k := min(len(p), chunkSize-len(u.buf))
		u.buf = append(u.buf, p[:k]...)
		u.h.Write(p[:k])
		p, written = p[k:], written+k
		if len(u.buf) == chunkSize {
			if err := u.flush(u.ctx, u.s.w); err != nil {
				u.err = wrap(u.ctx, err, "stage content chunk")
				return written, u.err
			}
		}
	}
	return written, nil
}

// flush stages the buffered chunk.
func (u *upload) flush(ctx context.Context, db sqlx.ExecerContext) error {
	q := u.s.d.q("INSERT INTO content_chunks (upload_id, n, data) VALUES (?, ?, ?)")
	if _, err := db.ExecContext(ctx, q, u.id, u.n, u.buf); err != nil {
		return err
	}
	u.n++
	u.size += int64(len(u.buf))
	u.buf = u.buf[:0]
	return nil
}

// Commit publishes the content under its hash. If that content is already
// stored, the staged copy is dropped. A failed Commit drops the staging too.
// Returns EINVALID if the bytes written do not hash to the expected sha256.
func (u *upload) Commit(ctx context.Context) error {
	if u.err != nil {
		err := u.err
		if !errors.Is(err, errFinished) {
			err = errors.Join(err, u.Abort(ctx))
		}
		return err
	}
	u.err = errFinished
	if got := u.h.Sum(nil); !bytes.Equal(got, u.want[:]) {
		return errors.Join(venue.Errorf(venue.EINVALID, "Content does not match its SHA-256: expected %x, got %x", u.want, got),
			u.drop(ctx))
	}
	if err := u.s.inTx(ctx, u.publish); err != nil {
		return errors.Join(wrap(ctx, err, "commit content %x", u.want), u.drop(ctx))
	}
	return nil
}

// publish stages the last chunk and turns the staging into content, in tx.
func (u *upload) publish(tx *sqlx.Tx) error {
	ctx, q := u.ctx, u.s.d.q
	if len(u.buf) > 0 {
		if err := u.flush(ctx, tx); err != nil {
			return err
		}
	}
	res, err := tx.ExecContext(ctx, q("INSERT INTO content (sha256, upload_id, size, created) VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING"),
		u.want[:], u.id, u.size, time.Now().UnixMilli())
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		// Already stored: this copy is surplus.
		if _, err := tx.ExecContext(ctx, q("DELETE FROM content_chunks WHERE upload_id = ?"), u.id); err != nil {
			return err
		}
	} else if err := u.s.chargeAssets(ctx, tx, u.owner, u.size); err != nil {
		return err
	}
	res, err = tx.ExecContext(ctx, q("DELETE FROM content_uploads WHERE id = ?"), u.id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(errors.New("staging was dropped as stale"), err)
	}
	return nil
}

// Abort drops the staged chunks. It is a no-op after Commit or Abort.
func (u *upload) Abort(ctx context.Context) error {
	if u.err == errFinished {
		return nil
	}
	u.err = errFinished
	return u.drop(ctx)
}

// drop deletes the upload's staging. It outlives a cancelled ctx, as it is
// how a failed upload cleans up after itself.
func (u *upload) drop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := u.s.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, u.s.d.q("DELETE FROM content_chunks WHERE upload_id = ?"), u.id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, u.s.d.q("DELETE FROM content_uploads WHERE id = ?"), u.id)
		return err
	})
	return wrap(ctx, err, "drop content upload")
}

// dropStaleUploads deletes the staging of uploads that cannot finish (see
// staleUpload).
func (s *Store) dropStaleUploads(ctx context.Context) error {
	cutoff := int64(math.MaxInt64)
	if s.d.postgres() {
		cutoff = time.Now().Add(-staleUpload).UnixMilli()
	}
	return s.inTx(ctx, func(tx *sqlx.Tx) error {
		q := s.d.q("DELETE FROM content_chunks WHERE upload_id IN (SELECT id FROM content_uploads WHERE created < ?)")
		if _, err := tx.ExecContext(ctx, q, cutoff); err != nil {
			return fmt.Errorf("drop stale uploads: %w", err)
		}
		_, err := tx.ExecContext(ctx, s.d.q("DELETE FROM content_uploads WHERE created < ?"), cutoff)
		return err
	})
}

// Content returns a reader over stored content and its size. The reader
// fetches one chunk per step. Returns ENOTFOUND if there is none.
func (s *Store) Content(ctx context.Context, sha [32]byte) (io.ReadSeekCloser, int64, error) {
	r := &contentReader{s: s, ctx: ctx}
	err := s.r.QueryRowContext(ctx, s.d.q("SELECT upload_id, size FROM content WHERE sha256 = ?"), sha[:]).Scan(&r.id, &r.size)
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, 0, venue.Errorf(venue.ENOTFOUND, "Content not found: 0x%x", sha)
	}
	if err != nil {
		return nil, 0, wrap(ctx, err, "load content %x", sha)
	}
	return r, r.size, nil
}

// contentReader streams content chunk by chunk. Every chunk but the last
// holds chunkSize bytes, so a Seek finds its chunk by division.
type contentReader struct {
	s      *Store
	ctx    context.Context // Content's: Read has none of its own
	id     []byte
	size   int64
	n      int    // next chunk to fetch
	read   int64  // bytes fetched so far
	skip   int    // bytes of the next chunk a Seek passed over
	buf    []byte // the unread rest of the current chunk
	chunk  []byte // the storage buf points into, reused per chunk
	closed bool
}

func (r *contentReader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, errors.New("read of closed content")
	}
	for len(r.buf) == 0 {
		if r.read >= r.size {
			return 0, io.EOF
		}
		if err := r.fetch(); err != nil {
			return 0, err
		}
	}
	k := copy(p, r.buf)
	r.buf = r.buf[k:]
	return k, nil
}

// Seek moves to offset without fetching: the next Read fetches the chunk
// that holds it. Offsets past the end read as EOF, as a file's do.
func (r *contentReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += r.read - int64(len(r.buf))
	case io.SeekEnd:
		offset += r.size
	case io.SeekStart:
	default:
		return 0, fmt.Errorf("seek content: whence %d", whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("seek content: offset %d before the start", offset)
	}
	r.n = int(offset / chunkSize)
	r.read = offset - offset%chunkSize
	r.skip = int(offset % chunkSize)
	r.buf = nil
	if offset >= r.size {
		r.read, r.skip = offset, 0
	}
	return offset, nil
}

// fetch loads the next chunk into the reused buffer.
func (r *contentReader) fetch() error {
	q := r.s.d.q("SELECT data FROM content_chunks WHERE upload_id = ? AND n = ?")
	rows, err := r.s.r.QueryContext(r.ctx, q, r.id, r.n)
	if err != nil {
		return wrap(r.ctx, err, "read content chunk %d", r.n)
	}
	defer rows.Close()
	if !rows.Next() {
		return errors.Join(io.ErrUnexpectedEOF, rows.Err())
	}
	var data dbsql.RawBytes
	if err := rows.Scan(&data); err != nil {
		return wrap(r.ctx, err, "read content chunk %d", r.n)
	}
	if len(data) == 0 {
		return io.ErrUnexpectedEOF
	}
	r.chunk = append(r.chunk[:0], data...)
	r.buf = r.chunk[min(r.skip, len(r.chunk)):]
	r.n++
	r.read += int64(len(data))
	r.skip = 0
	return nil
}

// Close releases the reader; it holds no connection between reads.
func (r *contentReader) Close() error {
	r.closed = true
	return nil
}
