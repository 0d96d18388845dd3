package sql

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
)

// upsertRows is how many rows one upsert statement carries. At 7 parameters
// a row it stays far below SQLite's 32766 and Postgres's 65535, and it bounds
// the statements cached per row count; a larger batch runs several
// statements in its one transaction.
const upsertRows = 64

// unfinished returns the condition that the status in column col may still
// change: it is not terminal. It is comparisons rather than NOT IN because
// SQLite builds a temporary table for a NOT IN list each time it evaluates
// one per row, as it does a partial index's condition on every row written.
// UnfinishedJobs repeats SQLite's partial index jobs_unfinished (migration
// 0003) word for word, which is how SQLite knows the index serves it.
func unfinished(col string) string {
	return col + " <> '" + string(venue.StatusComplete) + "' AND " + col + " <> '" + string(venue.StatusFailed) +
		"' AND " + col + " <> '" + string(venue.StatusCancelled) + "' AND " + col + " <> '" + string(venue.StatusRejected) + "'"
}

// upsertSQL returns the upsert of n rows. The WHERE of DO UPDATE is the
// whole ordering rule: a row replaces a stored job only with a greater
// version and only while the stored one is not terminal.
//
// Without notify nothing more is needed: the applied rows are counted (see
// execJobs). With notify (Postgres, while other nodes listen) RETURNING
// names them and the statement also tells the other nodes, in one payload
// (its last parameter is this node's id) on the channel notify names. A
// statement is atomic on its own, so a flush on Postgres is one round trip,
// with no BEGIN and COMMIT. A note is at most about 100 bytes, so
// upsertRows of them stay below Postgres's 8000-byte payload limit.
//
// Guarded (Postgres), each row carries an eighth parameter, its Stored
// mark, and a marked row goes in only where its job's row is there to
// replace: a job another node deleted stays deleted. The check locks that
// row (FOR UPDATE): under READ COMMITTED it then waits for a delete
// committing meanwhile and sees the row gone, where a plain EXISTS would
// read the statement's snapshot and the insert, finding the row deleted
// since, would put it back. The parameters are typed, as a VALUES list in
// a SELECT has no column to take a type from.
func upsertSQL(n int, notify string, guarded bool) string {
	var b strings.Builder
	if notify != "" {
		b.WriteString("WITH up AS (")
	}
	b.WriteString("INSERT INTO jobs (id, owner, status, version, created, updated, record) ")
	if !guarded {
		b.WriteString("VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("(?,?,?,?,?,?,?)")
		}
	} else {
		b.WriteString("SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7 FROM (VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("(?::bytea,?::text,?::text,?::bigint,?::bigint,?::bigint,?::bytea,?::boolean)")
		}
		b.WriteString(") AS v WHERE NOT v.column8 OR EXISTS (SELECT 1 FROM jobs WHERE jobs.id = v.column1 FOR UPDATE)")
	}
	b.WriteString(` ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version,
 updated = excluded.updated, record = excluded.record
 WHERE jobs.version < excluded.version AND ` + unfinished("jobs.status"))
	if notify != "" {
		// The subquery is uncorrelated, so Postgres evaluates it once, and
		// only when some row was applied.
		b.WriteString(` RETURNING id, status, version)
 SELECT id, (SELECT pg_notify('` + notify + `', json_build_object('node', ?::text, 'notes', json_agg(
 json_build_object('kind', 'job', 'id', '0x' || encode(n.id, 'hex'), 'status', n.status, 'version', n.version)))::text)
 FROM up n) FROM up`)
	}
	return b.String()
}

// replaceSQL replaces a job's row, and never inserts one, under the
// ordering rule of upsertSQL: SQLite's way with a row marked Stored.
var replaceSQL = `UPDATE jobs SET status = ?, version = ?, updated = ?, record = ?
 WHERE id = ? AND version < ? AND ` + unfinished("status")

// WriteJobs stores rows in one transaction and reports which were applied.
// Rows go in id order, so concurrent batches on Postgres take row locks in
// one order and cannot deadlock. On Postgres the same transaction notifies
// the other nodes of the applied rows.
func (s *Store) WriteJobs(ctx context.Context, rows []runtime.JobRow) ([]bool, error) {
	applied := make([]bool, len(rows))
	if len(rows) == 0 {
		return applied, ctx.Err()
	}
	order := idOrder(rows)
	if !s.d.postgres() && slices.ContainsFunc(rows, func(r runtime.JobRow) bool { return r.Stored }) {
		return s.writeReplacing(ctx, rows, order)
	}
	notify := s.d.postgres() && s.peers.any()
	if len(rows) <= upsertRows {
		// One statement commits by itself: an explicit transaction would
		// cost two more statements (BEGIN, COMMIT) for the same writes.
		st, guarded, err := s.upsertFor(ctx, rows, order, notify)
		if err == nil {
			err = s.writeChunk(ctx, st, s.w, rows, order, notify, guarded, applied)
		}
		if err != nil {
			return nil, wrap(ctx, err, "write %d jobs", len(rows))
		}
		return applied, nil
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error { return s.upsertChunks(ctx, tx, rows, order, notify, applied) })
	if err != nil {
		return nil, wrap(ctx, err, "write %d jobs", len(rows))
	}
	return applied, nil
}

// upsertChunks writes rows[order] in tx, upsertRows at a time.
func (s *Store) upsertChunks(ctx context.Context, tx *sqlx.Tx, rows []runtime.JobRow, order []int, notify bool, applied []bool) error {
	for start := 0; start < len(order); start += upsertRows {
		chunk := order[start:min(start+upsertRows, len(order))]
		prepared, guarded, err := s.upsertFor(ctx, rows, chunk, notify)
		if err != nil {
			return err
		}
		if err := s.writeChunk(ctx, tx.StmtContext(ctx, prepared), tx, rows, chunk, notify, guarded, applied); err != nil {
			return err
		}
	}
	return nil
}

// writeChunk writes rows[chunk] with the prepared upsert st, through q (the
// pool or a transaction), and marks the rows applied: named by RETURNING
// when notifying, counted otherwise.
func (s *Store) writeChunk(ctx context.Context, st *dbsql.Stmt, q queryer, rows []runtime.JobRow, chunk []int, notify, guarded bool, applied []bool) error {
	if notify {
		return s.upsertJobs(ctx, st, rows, chunk, guarded, applied)
	}
	return s.execJobs(ctx, st, q, rows, chunk, guarded, applied)
}

// writeReplacing is WriteJobs on SQLite for a batch with rows marked
// Stored: those are replaced, one UPDATE each, and the rest upserted, in one
// transaction. With one writer at a time nothing can delete a row between
// finding and replacing it. Postgres's guarded upsert costs SQLite as much
// (its SELECT reads the table it inserts into, so SQLite first copies the
// rows to a temporary table) and would need a statement per batch size.
func (s *Store) writeReplacing(ctx context.Context, rows []runtime.JobRow, order []int) ([]bool, error) {
	applied := make([]bool, len(rows))
	var fresh, kept []int
	for _, i := range order {
		if rows[i].Stored {
			kept = append(kept, i)
		} else {
			fresh = append(fresh, i)
		}
	}
	err := s.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.upsertChunks(ctx, tx, rows, fresh, false, applied); err != nil {
			return err
		}
		replace := tx.StmtContext(ctx, s.replace)
		for _, i := range kept {
			r := &rows[i]
			res, err := replace.ExecContext(ctx, string(r.Status), r.Version, r.Updated, r.Record, r.ID[:], r.Version)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			applied[i] = n == 1
		}
		return nil
	})
	if err != nil {
		return nil, wrap(ctx, err, "write %d jobs", len(rows))
	}
	return applied, nil
}

// upsertJobs writes rows[chunk] on Postgres with the cached notifying
// statement st (in a transaction or on its own) and marks the rows it
// applied, which RETURNING names.
func (s *Store) upsertJobs(ctx context.Context, st *dbsql.Stmt, rows []runtime.JobRow, chunk []int, guarded bool, applied []bool) error {
	args := append(jobArgs(rows, chunk, guarded, 1), s.node)
	dest := []any{new(dbsql.RawBytes), new(dbsql.RawBytes)} // the id, and the notify's void result
	res, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		if err := res.Scan(dest...); err != nil {
			return err
		}
		id := *dest[0].(*dbsql.RawBytes)
		for _, i := range chunk {
			if bytes.Equal(rows[i].ID[:], id) {
				applied[i] = true
			}
		}
	}
	return res.Err()
}

// execJobs runs the upsert st (a statement of tx, or of the pool on
// Postgres, where one statement needs no transaction) on rows[chunk]. Both
// stores count the rows an upsert applied, and when that is every row (on
// SQLite always, with one process writing; on Postgres unless another node
// wrote the same job) the count is all it takes: RETURNING would build a
// temporary table per flush on SQLite and send every id back on Postgres.
// Otherwise it reads back, through q, which rows now hold the written
// records.
func (s *Store) execJobs(ctx context.Context, st *dbsql.Stmt, q queryer, rows []runtime.JobRow, chunk []int, guarded bool, applied []bool) error {
	res, err := st.ExecContext(ctx, jobArgs(rows, chunk, guarded, 0)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && int(n) == len(chunk) {
		for _, i := range chunk {
			applied[i] = true
		}
		return nil
	}
	ids := make([]any, len(chunk))
	for k, i := range chunk {
		ids[k] = rows[i].ID[:]
	}
	query := s.d.q("SELECT id, version, record FROM jobs WHERE id IN (?" + strings.Repeat(",?", len(chunk)-1) + ")")
	stored, err := q.QueryContext(ctx, query, ids...)
	if err != nil {
		return err
	}
	defer stored.Close()
	for stored.Next() {
		var id, record []byte
		var version int64
		if err := stored.Scan(&id, &version, &record); err != nil {
			return err
		}
		for _, i := range chunk {
			if bytes.Equal(rows[i].ID[:], id) {
				applied[i] = version == rows[i].Version && bytes.Equal(record, rows[i].Record)
			}
		}
	}
	return stored.Err()
}

// idOrder returns the indexes of rows sorted by id.
func idOrder(rows []runtime.JobRow) []int {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	if len(rows) > 1 {
		slices.SortFunc(order, func(a, b int) int { return bytes.Compare(rows[a].ID[:], rows[b].ID[:]) })
	}
	return order
}

// Job returns the stored row. Returns ENOTFOUND if there is none.
func (s *Store) Job(ctx context.Context, id venue.JobID) (runtime.JobRow, error) {
	row := runtime.JobRow{ID: id}
	st, err := s.prepared(ctx, s.d.q("SELECT owner, status, version, created, updated, record FROM jobs WHERE id = ?"))
	if err != nil {
		return row, wrap(ctx, err, "load job %s", id)
	}
	err = st.QueryRowContext(ctx, id[:]).
		Scan(&row.Owner, &row.Status, &row.Version, &row.Created, &row.Updated, &row.Record)
	if errors.Is(err, dbsql.ErrNoRows) {
		return row, venue.Errorf(venue.ENOTFOUND, "Job not found: %s", id)
	}
	return row, wrap(ctx, err, "load job %s", id)
}

// ListJobs returns a page of the owner's jobs in id order and the owner's
// total, both from one snapshot.
func (s *Store) ListJobs(ctx context.Context, owner string, offset, limit int, withRecords bool) ([]runtime.JobRow, int, error) {
	var (
		out   []runtime.JobRow
		total int
	)
	offset = max(offset, 0)
	err := s.inReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &total, s.d.q("SELECT count(*) FROM jobs WHERE owner = ?"), owner); err != nil {
			return err
		}
		if offset >= total || limit == 0 {
			return nil
		}
		var err error
		out, err = s.listJobs(ctx, tx, owner, offset, limit, withRecords)
		return err
	})
	if err != nil {
		return nil, 0, wrap(ctx, err, "list jobs of %s", owner)
	}
	return out, total, nil
}

// JobStatusCounts counts the owner's jobs by status in one statement. It
// reads each of the owner's rows from the table (counting them reads the
// owner index only), some ten times the cost of a count on SQLite: no
// index holds the status, since one would be rewritten on every transition
// (on Postgres, a transition would no longer be a HOT update).
func (s *Store) JobStatusCounts(ctx context.Context, owner string) (map[venue.JobStatus]int, error) {
	rows, err := s.r.QueryContext(ctx, s.d.q("SELECT status, count(*) FROM jobs WHERE owner = ? GROUP BY status"), owner)
	if err != nil {
		return nil, wrap(ctx, err, "count jobs of %s by status", owner)
	}
	defer rows.Close()
	counts := map[venue.JobStatus]int{}
	for rows.Next() {
		var (
			st venue.JobStatus
			n  int
		)
		if err := rows.Scan(&st, &n); err != nil {
			return nil, wrap(ctx, err, "count jobs of %s by status", owner)
		}
		counts[st] = n
	}
	return counts, wrap(ctx, rows.Err(), "count jobs of %s by status", owner)
}

func (s *Store) listJobs(ctx context.Context, tx *sqlx.Tx, owner string, offset, limit int, withRecords bool) ([]runtime.JobRow, error) {
	cols := "id, owner, status, version, created, updated"
	if withRecords {
		cols += ", record"
	}
	q := s.d.q("SELECT " + cols + " FROM jobs WHERE owner = ? ORDER BY id LIMIT ? OFFSET ?")
	return scanJobs(ctx, tx, withRecords, q, owner, s.d.limit(limit), offset)
}

// UnfinishedJobs returns every job whose status is not terminal, in id
// order, with records. On SQLite a partial index holds just those jobs; on
// Postgres such an index would make every transition a non-HOT update, too
// dear on the hot path for a query run once at start.
func (s *Store) UnfinishedJobs(ctx context.Context) ([]runtime.JobRow, error) {
	rows, err := scanJobs(ctx, s.r, true, unfinishedJobsSQL())
	return rows, wrap(ctx, err, "list unfinished jobs")
}

// unfinishedJobsSQL is UnfinishedJobs's query, which a test explains.
func unfinishedJobsSQL() string {
	return "SELECT id, owner, status, version, created, updated, record FROM jobs WHERE " + unfinished("status") + " ORDER BY id"
}

// scanJobs runs q, which selects id, owner, status, version, created,
// updated and, if withRecords, record.
func scanJobs(ctx context.Context, db sqlx.QueryerContext, withRecords bool, q string, args ...any) ([]runtime.JobRow, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []runtime.JobRow
	for rows.Next() {
		var (
			r  runtime.JobRow
			id dbsql.RawBytes
		)
		dest := []any{&id, &r.Owner, &r.Status, &r.Version, &r.Created, &r.Updated}
		if withRecords {
			dest = append(dest, &r.Record)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		copy(r.ID[:], id)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DeleteJob removes the owner's job; its messages go with it (ON DELETE
// CASCADE). Returns ENOTFOUND if the owner has no such job.
func (s *Store) DeleteJob(ctx context.Context, owner string, id venue.JobID) error {
	res, err := s.w.ExecContext(ctx, s.d.q("DELETE FROM jobs WHERE id = ? AND owner = ?"), id[:], owner)
	if err != nil {
		return wrap(ctx, err, "delete job %s", id)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(ctx, err, "delete job %s", id)
	}
	if n == 0 {
		return venue.Errorf(venue.ENOTFOUND, "Job not found: %s", id)
	}
	return nil
}

// PruneJobs deletes up to limit finished jobs last updated before before.
// The id bound keeps the scan to the jobs created before then, on the
// primary key, however many newer ones there are.
func (s *Store) PruneJobs(ctx context.Context, before int64, limit int) ([]venue.JobID, error) {
	below := venue.JobIDAt(max(before, 0), 0)
	rows, err := s.w.QueryContext(ctx, s.d.q(`DELETE FROM jobs WHERE id IN (
		SELECT id FROM jobs WHERE id < ? AND updated < ? AND status IN ('COMPLETE', 'FAILED', 'CANCELLED', 'REJECTED')
		ORDER BY id LIMIT ?) RETURNING id`), below[:], before, limit)
	if err != nil {
		return nil, wrap(ctx, err, "prune jobs")
	}
	defer rows.Close()
	var ids []venue.JobID
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return ids, wrap(ctx, err, "prune jobs")
		}
		var id venue.JobID
		copy(id[:], b)
		ids = append(ids, id)
	}
	return ids, wrap(ctx, rows.Err(), "prune jobs")
}

// prepareUpserts prepares the upsert of every row count up to upsertRows,
// so the hot path neither rebuilds nor re-parses its SQL. It runs at Open,
// with no transaction in flight: preparing through the pool later, from
// inside a transaction, would wait forever for SQLite's one writer
// connection. database/sql re-prepares a statement on any other connection
// that runs it, inside that connection's transaction.
func (s *Store) prepareUpserts(ctx context.Context) error {
	kinds := 1
	if s.d.postgres() {
		kinds = 2 // plain, and notifying
	}
	s.upserts = make([]*dbsql.Stmt, kinds*upsertRows)
	for k := range kinds {
		for n := 1; n <= upsertRows; n++ {
			channel := ""
			if k == 1 {
				channel = s.channel
			}
			st, err := s.w.PrepareContext(ctx, s.d.q(upsertSQL(n, channel, false)))
			if err != nil {
				return fmt.Errorf("prepare job upsert: %w", err)
			}
			s.upserts[k*upsertRows+n-1] = st
		}
	}
	if !s.d.postgres() {
		st, err := s.w.PrepareContext(ctx, replaceSQL)
		if err != nil {
			return fmt.Errorf("prepare job replace: %w", err)
		}
		s.replace = st
	}
	return nil
}

// jobArgs are the upsert's parameters for rows[chunk], with each row's
// Stored mark if guarded, and room for extra more.
func jobArgs(rows []runtime.JobRow, chunk []int, guarded bool, extra int) []any {
	per := 7
	if guarded {
		per = 8
	}
	args := make([]any, 0, per*len(chunk)+extra)
	for _, i := range chunk {
		r := &rows[i]
		args = append(args, r.ID[:], r.Owner, string(r.Status), r.Version, r.Created, r.Updated, r.Record)
		if guarded {
			args = append(args, r.Stored)
		}
	}
	return args
}

// queryer runs a query in a transaction or on the pool.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*dbsql.Rows, error)
}

// upsertFor returns the prepared upsert of rows[chunk], notifying or not:
// the guarded one if a row is marked Stored (a job with a row, written
// again by the node running it; Postgres only, see writeReplacing), the
// plain one otherwise (a job's first row: every row of a quick job invoked
// with wait).
func (s *Store) upsertFor(ctx context.Context, rows []runtime.JobRow, chunk []int, notify bool) (st *dbsql.Stmt, guarded bool, err error) {
	for _, i := range chunk {
		if rows[i].Stored {
			st, err = s.guardedUpsert(ctx, len(chunk), notify)
			return st, true, err
		}
	}
	if notify {
		return s.upserts[upsertRows+len(chunk)-1], false, nil
	}
	return s.upserts[len(chunk)-1], false, nil
}

// guardedUpsert returns the guarded upsert of n rows (Postgres), notifying
// or not, preparing it on first use: preparing every size at Open as well
// would double what opening a store spends on preparing, for sizes most
// runs never write.
func (s *Store) guardedUpsert(ctx context.Context, n int, notify bool) (*dbsql.Stmt, error) {
	k := n - 1
	channel := ""
	if notify {
		k += upsertRows
		channel = s.channel
	}
	s.guarded.mu.Lock()
	defer s.guarded.mu.Unlock()
	if s.guarded.closed {
		return nil, errors.New("the store is closed")
	}
	if st := s.guarded.stmts[k]; st != nil {
		return st, nil
	}
	st, err := s.w.PrepareContext(ctx, s.d.q(upsertSQL(n, channel, true)))
	if err != nil {
		return nil, fmt.Errorf("prepare job upsert: %w", err)
	}
	s.guarded.stmts[k] = st
	return st, nil
}

func (s *Store) closeUpserts() error {
	s.guarded.mu.Lock()
	defer s.guarded.mu.Unlock()
	s.guarded.closed = true
	var errs []error
	for _, st := range append(append(s.upserts, s.replace), s.guarded.stmts[:]...) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}
