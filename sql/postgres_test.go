package sql

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql/sqltest"
	"github.com/gridvenue/venue/sql/storetest"
)

// mustPostgres returns the Postgres to test against: it skips without one,
// except under CI, where a missing Postgres fails.
func mustPostgres(t *testing.T) string { return sqltest.PostgresDSN(t, true) }

func freshSchema(tb testing.TB, dsn string) string { return sqltest.FreshSchema(tb, dsn) }

func TestPostgres_Store(t *testing.T) {
	dsn := mustPostgres(t)
	storetest.Run(t, func(t *testing.T) runtime.Store { return mustOpen(t, freshSchema(t, dsn), suiteOptions) })
}

func TestPostgres_Dialect(t *testing.T) {
	s := mustOpen(t, freshSchema(t, mustPostgres(t)), Options{})
	if s.Dialect() != DialectPostgres || s.FlushParallelism() < 1 {
		t.Fatalf("Dialect, FlushParallelism = %q, %d", s.Dialect(), s.FlushParallelism())
	}
}

func TestPostgres_ConcurrentOpenMigratesOnce(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s, err := Open(t.Context(), dsn, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			s.Close()
		})
	}
	wg.Wait()
	s := mustOpen(t, dsn, Options{})
	var n int
	ms, _ := migrations("postgres")
	if err := s.r.GetContext(t.Context(), &n, "SELECT count(*) FROM schema_version"); err != nil || n != len(ms) {
		t.Fatalf("schema_version rows = %d, %v; want %d, each migration once", n, err, len(ms))
	}
}

// noteSink collects the notes a listener hears about a set of jobs; other
// tests may publish on the same database at the same time.
type noteSink struct {
	mu    sync.Mutex
	ids   map[venue.JobID]bool
	notes []runtime.JobNote
}

func (k *noteSink) watch(ids ...venue.JobID) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range ids {
		k.ids[id] = true
	}
}

func (k *noteSink) fn(n runtime.JobNote) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ids[n.ID] {
		k.notes = append(k.notes, n)
	}
}

func (k *noteSink) got() []runtime.JobNote {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]runtime.JobNote(nil), k.notes...)
}

// waitFor polls until sink holds n notes or a deadline passes.
func (k *noteSink) waitFor(t *testing.T, n int) []runtime.JobNote {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got := k.got(); len(got) >= n {
			return got
		}
	}
	t.Fatalf("heard %d notes, want %d", len(k.got()), n)
	return nil
}

func listening(t *testing.T, s *Store, ctx context.Context) *noteSink {
	t.Helper()
	k := &noteSink{ids: map[venue.JobID]bool{}}
	if err := s.ListenJobs(ctx, k.fn); err != nil {
		t.Fatalf("ListenJobs: %v", err)
	}
	return k
}

func TestPostgres_ListenJobs(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	b := mustOpen(t, dsn, Options{NodeID: "node-b"})
	heardA, heardB := listening(t, a, t.Context()), listening(t, b, t.Context())
	ctx := t.Context()
	ids := []venue.JobID{{1}, {2}, {3}}
	heardA.watch(ids...)
	heardB.watch(ids...)
	row := func(id venue.JobID, st venue.JobStatus, v int64) runtime.JobRow {
		return runtime.JobRow{ID: id, Owner: "did:key:z", Status: st, Version: v, Record: []byte(`{}`)}
	}
	t.Run("applied rows reach the other node only", func(t *testing.T) {
		if _, err := a.WriteJobs(ctx, []runtime.JobRow{row(ids[0], venue.StatusPending, 1), row(ids[1], venue.StatusComplete, 1)}); err != nil {
			t.Fatal(err)
		}
		// Not applied: no note.
		if _, err := a.WriteJobs(ctx, []runtime.JobRow{row(ids[1], venue.StatusStarted, 2)}); err != nil {
			t.Fatal(err)
		}
		if _, err := a.AddJobMessage(ctx, ids[0], []byte(`"hi"`)); err != nil {
			t.Fatal(err)
		}
		got := heardB.waitFor(t, 3)
		want := []runtime.JobNote{
			{Kind: "job", ID: ids[0], Status: venue.StatusPending, Version: 1},
			{Kind: "job", ID: ids[1], Status: venue.StatusComplete, Version: 1},
			{Kind: "message", ID: ids[0], Status: venue.StatusPending, Version: 1},
		}
		time.Sleep(200 * time.Millisecond) // let anything extra arrive
		if got = heardB.got(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("B heard %v\nwant %v", got, want)
		}
		if got := heardA.got(); len(got) != 0 {
			t.Fatalf("A heard its own notes: %v", got)
		}
	})
	t.Run("B's writes reach A", func(t *testing.T) {
		if _, err := b.WriteJobs(ctx, []runtime.JobRow{row(ids[2], venue.StatusPending, 1)}); err != nil {
			t.Fatal(err)
		}
		if got := heardA.waitFor(t, 1); got[0].ID != ids[2] || got[0].Kind != "job" {
			t.Fatalf("A heard %v", got)
		}
	})
}

func TestPostgres_ListenJobsLargeBatch(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	b := mustOpen(t, dsn, Options{NodeID: "node-b"})
	heard := listening(t, b, t.Context())
	owner := "did:web:" + strings.Repeat("x", 200)
	rows := make([]runtime.JobRow, 300)
	for i := range rows {
		rows[i] = runtime.JobRow{ID: venue.JobID{0xee, byte(i >> 8), byte(i)}, Owner: owner, Status: venue.StatusPending, Version: 1, Record: []byte(`{}`)}
		heard.watch(rows[i].ID)
	}
	if _, err := a.WriteJobs(t.Context(), rows); err != nil {
		t.Fatal(err)
	}
	if got := heard.waitFor(t, len(rows)); got[299].ID != rows[299].ID || got[299].Status != venue.StatusPending {
		t.Fatalf("last note = %v", got[299])
	}
}

func TestPostgres_ListenJobsStopsWithContext(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	b := mustOpen(t, dsn, Options{NodeID: "node-b"})
	ctx, cancel := context.WithCancel(t.Context())
	heard := listening(t, b, ctx)
	id := venue.JobID{0xdd}
	heard.watch(id)
	cancel()
	time.Sleep(100 * time.Millisecond)
	if _, err := a.WriteJobs(t.Context(), []runtime.JobRow{{ID: id, Owner: "o", Status: venue.StatusPending, Version: 1, Record: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := heard.got(); len(got) != 0 {
		t.Fatalf("stopped listener heard %v", got)
	}
}

func TestPostgres_KeyValueDSN(t *testing.T) {
	u, err := url.Parse(freshSchema(t, mustPostgres(t)))
	if err != nil || u.Scheme == "" {
		t.Skip("VENUE_TEST_POSTGRES is not a URL")
	}
	kv := fmt.Sprintf("host=%s dbname=%s user=%s", u.Hostname(), strings.TrimPrefix(u.Path, "/"), u.User.Username())
	if p := u.Port(); p != "" {
		kv += " port=" + p
	}
	for k, vs := range u.Query() {
		kv += " " + k + "=" + vs[0]
	}
	s := mustOpen(t, kv, Options{})
	if s.Dialect() != DialectPostgres {
		t.Fatalf("Dialect = %q", s.Dialect())
	}
	if _, err := s.CountUsers(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestPostgres_RelatedValuesStreamFromTheKey checks that a read of a large
// subtree comes from the primary key in path order: the union sorted whole
// was a parallel scan of the table and a sort on disk (300,000 rows, 350 ms
// and 70 MB of temporary files before the first row).
func TestPostgres_RelatedValuesStreamFromTheKey(t *testing.T) {
	s := mustOpen(t, freshSchema(t, mustPostgres(t)), Options{})
	for _, q := range []string{
		`INSERT INTO lattice_values SELECT 'did:key:a', 'w/big/' || lpad(g::text, 6, '0'), convert_to(repeat('x', 100), 'UTF8') FROM generate_series(1, 30000) g`,
		`INSERT INTO lattice_values SELECT 'did:key:b', 'w/' || g, '1' FROM generate_series(1, 10000) g`,
		`ANALYZE lattice_values`,
	} {
		if _, err := s.w.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	for _, col := range []string{"value", "NULL"} {
		q, args := s.relatedValues("did:key:a", "w/big", col)
		var plan []string
		rows, err := s.r.QueryContext(t.Context(), "EXPLAIN "+q, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			rows.Scan(&line)
			plan = append(plan, line)
		}
		rows.Close()
		var parts []string
		for _, line := range plan {
			if strings.Contains(line, "Seq Scan") || strings.Contains(line, "Gather") || strings.Contains(line, "Parallel") {
				t.Fatalf("%s: plan reads the table rather than the key:\n%s", col, strings.Join(plan, "\n"))
			}
			if child, ok := strings.CutPrefix(line, "  ->  "); ok {
				parts = append(parts, child)
			}
		}
		if !strings.HasPrefix(plan[0], "Append") || len(parts) != 2 || !strings.HasPrefix(parts[1], "Index Scan") {
			t.Fatalf("%s: want the range's index scan appended to the rows at path and ancestors:\n%s", col, strings.Join(plan, "\n"))
		}
	}
	var n int
	err := s.ValueRows(t.Context(), "did:key:a", "w/big", true, func(runtime.ValueRow) error { n++; return nil })
	if err != nil || n != 30000 {
		t.Fatalf("ValueRows = %d rows, %v", n, err)
	}
	// Folded, as an agent's record is read without its sessions: every
	// part a search of the key, none a sort of the subtree.
	q, args := s.foldedValues("did:key:a", "w", runtime.Fold{Path: "w/big", Keep: []string{"w/big/000007"}}, "value")
	rows, err := s.r.QueryContext(t.Context(), "EXPLAIN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan = append(plan, line)
	}
	rows.Close()
	for _, line := range plan {
		if strings.Contains(line, "Seq Scan") || strings.Contains(line, "Gather") || strings.Contains(line, "Parallel") || strings.Contains(line, "Sort") {
			t.Fatalf("folded: plan reads or sorts the table rather than searching the key:\n%s", strings.Join(plan, "\n"))
		}
	}
	n = 0
	err = s.FoldedRows(t.Context(), "did:key:a", "w", runtime.Fold{Path: "w/big", Keep: []string{"w/big/000007"}}, func(runtime.ValueRow) error { n++; return nil })
	if err != nil || n != 2 {
		t.Fatalf("FoldedRows = %d rows, %v; want the BelowRow and the kept row", n, err)
	}
}

// TestPostgres_ListenResyncsAfterReconnect: when the listening connection
// is lost and comes back, the notes sent meanwhile are gone, so the store
// says so (NoteResync) and the engine catches up.
func TestPostgres_ListenResyncsAfterReconnect(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a := mustOpen(t, dsn, Options{NodeID: "node-a"})
	resyncs := make(chan struct{}, 10)
	err := a.ListenJobs(t.Context(), func(n runtime.JobNote) {
		if n.Kind == runtime.NoteResync {
			resyncs <- struct{}{}
		}
	})
	if err != nil {
		t.Fatalf("ListenJobs: %v", err)
	}
	var killed int
	if err := a.w.QueryRowContext(t.Context(), "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "+
		"WHERE pid <> pg_backend_pid() AND query LIKE $1", "%LISTEN%"+a.channel+"%").Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d listeners: %v", killed, err)
	}
	select {
	case <-resyncs:
	case <-time.After(15 * time.Second):
		t.Fatal("no resync note after the listener reconnected")
	}
}

// TestPostgres_NodesPruneSideBySide: nodes sharing a store prune at the
// same time without failing (no deadlock between their deletes) and
// between them delete each finished job once.
func TestPostgres_NodesPruneSideBySide(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	a, b := mustOpen(t, dsn, Options{}), mustOpen(t, dsn, Options{})
	const n = 3000
	rows := make([]runtime.JobRow, 0, 500)
	for i := range n {
		rows = append(rows, runtime.JobRow{ID: venue.JobIDAt(1_700_000_000_000+int64(i), 0), Owner: "did:key:alice", Status: venue.StatusComplete, Version: 3,
			Created: 1_700_000_000_000, Updated: 1_700_000_000_000, Record: benchRecord})
		if len(rows) == cap(rows) {
			if _, err := a.WriteJobs(t.Context(), rows); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		pruned = map[venue.JobID]int{}
	)
	for _, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			for {
				ids, err := s.PruneJobs(t.Context(), 1_800_000_000_000, 200)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, id := range ids {
					pruned[id]++
				}
				mu.Unlock()
				if len(ids) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if len(pruned) != n {
		t.Fatalf("%d of %d jobs pruned", len(pruned), n)
	}
	for id, times := range pruned {
		if times != 1 {
			t.Fatalf("job %s reported pruned %d times", id, times)
		}
	}
}

// TestPostgres_StoredRowWaitsForDelete: another node's delete of a job is
// under way (its transaction holds the row) when this node writes the job's
// next row, marked Stored. The write waits for the delete and, once it
// commits, finds the job gone: it must not insert the row over the delete.
func TestPostgres_StoredRowWaitsForDelete(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	s := mustOpen(t, dsn, Options{})
	other := mustOpen(t, dsn, Options{})
	var id venue.JobID
	id[0], id[15] = 1, 7
	row := runtime.JobRow{ID: id, Owner: "did:key:alice", Status: venue.StatusStarted, Version: 2,
		Created: 1, Updated: 2, Record: []byte(`{"status":"STARTED"}`)}
	if applied, err := s.WriteJobs(t.Context(), []runtime.JobRow{row}); err != nil || !applied[0] {
		t.Fatalf("first write: %v %v", applied, err)
	}
	tx, err := other.w.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(t.Context(), "DELETE FROM jobs WHERE id = $1", id[:]); err != nil {
		t.Fatal(err)
	}
	next := row
	next.Status, next.Version, next.Record, next.Stored = venue.StatusComplete, 3, []byte(`{"status":"COMPLETE"}`), true
	type result struct {
		applied []bool
		err     error
	}
	done := make(chan result, 1)
	go func() {
		applied, err := s.WriteJobs(context.Background(), []runtime.JobRow{next})
		done <- result{applied, err}
	}()
	time.Sleep(200 * time.Millisecond) // the write waits on the row the delete holds
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.applied[0] {
		t.Fatalf("write after the delete: applied %v, err %v", r.applied, r.err)
	}
	if _, err := s.Job(t.Context(), id); venue.ErrorCode(err) != venue.ENOTFOUND {
		t.Fatalf("the job deleted by the other node is back (err %v)", err)
	}
}

// TestPostgres_SecretsBoundedAcrossNodes: two nodes on one database put
// new secrets at once with room for one, and one is stored. Each node
// counted under its own lock, so every node could pass the bound by one.
func TestPostgres_SecretsBoundedAcrossNodes(t *testing.T) {
	dsn := freshSchema(t, mustPostgres(t))
	nodes := []*Store{mustOpen(t, dsn, Options{NodeID: "node-a"}), mustOpen(t, dsn, Options{NodeID: "node-b"})}
	const owner = "did:key:z6MkOwner"
	for i := range 4 {
		if err := nodes[0].PutSecret(t.Context(), owner, fmt.Sprintf("K%d", i), []byte("v"), 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 20 {
		var stored atomic.Int64
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				err := nodes[i%2].PutSecret(t.Context(), owner, fmt.Sprintf("R%d_%d", round, i), []byte("v"), 1, 5)
				if err == nil {
					stored.Add(1)
				} else if venue.ErrorCode(err) != venue.ECONFLICT {
					t.Errorf("racer %d: %v", i, err)
				}
			})
		}
		wg.Wait()
		names, err := nodes[1].SecretNames(t.Context(), owner)
		if err != nil || stored.Load() != 1 || len(names) != 5 {
			t.Fatalf("round %d: %d of 8 racers stored, %d names kept, %v; want 1 and 5", round, stored.Load(), len(names), err)
		}
		if err := nodes[0].DeleteSecret(t.Context(), owner, names[4]); err != nil {
			t.Fatal(err)
		}
	}
}
