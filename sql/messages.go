package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// A job's queue holds at most maxQueued messages of maxQueuedBytes in all:
// replies wait there only until the job takes them, and one that never
// does must not fill the disk a reply at a time.
const (
	maxQueued      = 64
	maxQueuedBytes = 32 << 20
)

// AddJobMessage appends msg to the job's queue and returns how many messages
// are queued after it. On Postgres the other nodes hear of it (kind
// "message"), so the node running the job can answer wherever msg arrived.
// Returns ENOTFOUND if there is no such job, and ECONFLICT if it has ended
// or its queue is full.
func (s *Store) AddJobMessage(ctx context.Context, id venue.JobID, msg []byte) (int, error) {
	if msg == nil {
		msg = []byte{} // an empty message is still a message
	}
	var queued int
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		note := runtime.JobNote{Kind: "message", ID: id}
		err := tx.QueryRowContext(ctx, s.d.q("SELECT status, version FROM jobs WHERE id = ?"+s.d.forShare), id[:]).
			Scan(&note.Status, &note.Version)
		if errors.Is(err, dbsql.ErrNoRows) {
			return venue.Errorf(venue.ENOTFOUND, "Job not found: %s", id)
		}
		if err != nil {
			return err
		}
		if note.Status.Terminal() {
			return venue.Errorf(venue.ECONFLICT, "Job is in terminal state: %s", id)
		}
		var size int64
		if err := tx.QueryRowContext(ctx, s.d.q("SELECT count(*), COALESCE(SUM(length(body)), 0) FROM job_messages WHERE job_id = ?"),
			id[:]).Scan(&queued, &size); err != nil {
			return err
		}
		if len(msg) > maxQueuedBytes {
			return venue.Errorf(venue.ETOOLARGE, "Reply of %d bytes exceeds the %d MiB a job's queue holds", len(msg), maxQueuedBytes>>20)
		}
		if queued >= maxQueued || size+int64(len(msg)) > maxQueuedBytes {
			return venue.Errorf(venue.ECONFLICT, "Job %s has %d replies (%d bytes) queued that it has not taken: "+
				"a job holds at most %d, of %d MiB in all; send more once it has taken some", id, queued, size, maxQueued, maxQueuedBytes>>20)
		}
		if _, err := tx.ExecContext(ctx, s.d.q("INSERT INTO job_messages (job_id, body) VALUES (?, ?)"), id[:], msg); err != nil {
			return err
		}
		queued++
		if s.d.postgres() {
			return s.notify(ctx, tx, []runtime.JobNote{note})
		}
		return nil
	})
	if err != nil {
		return 0, wrap(ctx, err, "add message to job %s", id)
	}
	return queued, nil
}

// DropJobMessages deletes what is still queued for a job that has ended:
// nothing will take it.
func (s *Store) DropJobMessages(ctx context.Context, id venue.JobID) error {
	_, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM job_messages WHERE job_id = ?"), id[:])
	return wrap(ctx, err, "drop messages of job %s", id)
}

// TakeJobMessage removes and returns the oldest queued message, or nil if
// none is queued. It is one statement; on Postgres SKIP LOCKED makes
// concurrent takers pop different messages rather than one of them
// finding the queue empty while messages remain.
func (s *Store) TakeJobMessage(ctx context.Context, id venue.JobID) ([]byte, error) {
	q := s.d.q("DELETE FROM job_messages WHERE seq = (SELECT seq FROM job_messages WHERE job_id = ? ORDER BY seq LIMIT 1" +
		s.d.skipLocked + ") RETURNING body")
	var body []byte
	err := s.w.QueryRowContext(ctx, q, id[:]).Scan(&body)
	if errors.Is(err, dbsql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap(ctx, err, "take message of job %s", id)
	}
	if body == nil {
		body = []byte{}
	}
	return body, nil
}
