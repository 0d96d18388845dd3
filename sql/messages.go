package sql

import (
	"context"
	dbsql "database/sql"
	"errors"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// AddJobMessage appends msg to the job's queue and returns how many messages
// are queued after it. On Postgres the other nodes hear of it (kind
// "message"), so the node running the job can answer wherever msg arrived.
// Returns ENOTFOUND if there is no such job.
func (s *Store) AddJobMessage(ctx context.Context, id venue.JobID, msg []byte) (int, error) {
	if msg == nil {
		msg = []byte{} // an empty message is still a message
	}
	var queued int
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		note := runtime.JobNote{Kind: "message", ID: id}
		err := tx.QueryRowContext(ctx, s.d.q("SELECT status, version FROM jobs WHERE id = ?"), id[:]).
			Scan(&note.Status, &note.Version)
		if errors.Is(err, dbsql.ErrNoRows) {
			return venue.Errorf(venue.ENOTFOUND, "Job not found: %s", id)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.d.q("INSERT INTO job_messages (job_id, body) VALUES (?, ?)"), id[:], msg); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &queued, s.d.q("SELECT count(*) FROM job_messages WHERE job_id = ?"), id[:]); err != nil {
			return err
		}
		if s.d.postgres() {
			return s.notify(ctx, tx, []runtime.JobNote{note})
		}
		return nil
	})
	if err != nil {
		return 0, wrap(err, "add message to job %s", id)
	}
	return queued, nil
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
		return nil, wrap(err, "take message of job %s", id)
	}
	if body == nil {
		body = []byte{}
	}
	return body, nil
}
