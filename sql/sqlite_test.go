package sql

import (
	"context"
	"crypto/sha256"
	dbsql "database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql/storetest"
)

func TestSQLite_Store(t *testing.T) {
	for _, o := range openers(t)[:2] {
		t.Run(o.name, func(t *testing.T) { storetest.Run(t, asStore(o)) })
	}
}

func TestSQLite_TempStoreIsRemovedOnClose(t *testing.T) {
	s, err := Open(t.Context(), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.tmpDir); err != nil {
		t.Fatalf("temp dir missing while open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.tmpDir); !os.IsNotExist(err) {
		t.Fatalf("temp dir %s still there after Close (%v)", s.tmpDir, err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestSQLite_FileStoreKeepsDataAcrossReopen(t *testing.T) {
	ctx := t.Context()
	for _, dsn := range []string{
		filepath.Join(t.TempDir(), "missing", "dirs", "venue.db"),
		"file:" + filepath.Join(t.TempDir(), "sub dir", "venue.db"),
	} {
		t.Run(dsn, func(t *testing.T) {
			id := venue.JobID{1, 2, 3}
			data := []byte("content that must survive")
			s, err := Open(ctx, dsn, Options{})
			if err != nil {
				t.Fatal(err)
			}
			writeSample(t, s, id, data)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = mustOpen(t, dsn, Options{})
			if r, err := s.Job(ctx, id); err != nil || string(r.Record) != `{"id":1}` {
				t.Fatalf("job after reopen = %q, %v", r.Record, err)
			}
			rc, size, err := s.Content(ctx, sha256.Sum256(data))
			if err != nil || size != int64(len(data)) {
				t.Fatalf("content after reopen: %d, %v", size, err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if string(got) != string(data) {
				t.Fatalf("content after reopen = %q", got)
			}
			var versions int
			ms, _ := migrations("sqlite")
			if err := s.r.GetContext(ctx, &versions, "SELECT count(*) FROM schema_version"); err != nil || versions != len(ms) {
				t.Fatalf("schema_version rows = %d, %v; want migrations applied once", versions, err)
			}
		})
	}
}

func writeSample(t *testing.T, s *Store, id venue.JobID, data []byte) {
	t.Helper()
	ctx := t.Context()
	row := runtime.JobRow{ID: id, Owner: "did:key:a", Status: venue.StatusPending, Version: 1, Record: []byte(`{"id":1}`)}
	if _, err := s.WriteJobs(ctx, []runtime.JobRow{row}); err != nil {
		t.Fatal(err)
	}
	u, err := s.NewContent(ctx, sha256.Sum256(data), "did:key:uploader")
	if err != nil {
		t.Fatal(err)
	}
	u.Write(data)
	if err := u.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSQLite_Pragmas(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dsn      string
		wantSync int
		wantShm  bool // the WAL index is a file other processes can map
	}{
		{"durable file syncs every commit", filepath.Join(t.TempDir(), "venue.db"), 2, true},
		{"temp store does not sync and keeps its WAL index in memory", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, tc.dsn, Options{})
			path := tc.dsn
			if path == "" {
				path = filepath.Join(s.tmpDir, "venue.db")
			}
			if _, err := os.Stat(path + "-shm"); (err == nil) != tc.wantShm {
				t.Errorf("stat %s-shm: %v; want a file: %v", path, err, tc.wantShm)
			}
			for pool, db := range map[string]interface {
				GetContext(context.Context, any, string, ...any) error
			}{"writer": s.w, "reader": s.r} {
				var mode string
				var sync, fk int
				if err := db.GetContext(t.Context(), &mode, "PRAGMA journal_mode"); err != nil || mode != "wal" {
					t.Errorf("%s journal_mode = %q, %v", pool, mode, err)
				}
				if err := db.GetContext(t.Context(), &sync, "PRAGMA synchronous"); err != nil || sync != tc.wantSync {
					t.Errorf("%s synchronous = %d, %v; want %d", pool, sync, err, tc.wantSync)
				}
				if err := db.GetContext(t.Context(), &fk, "PRAGMA foreign_keys"); err != nil || fk != 1 {
					t.Errorf("%s foreign_keys = %d, %v", pool, fk, err)
				}
			}
			if _, err := s.r.ExecContext(t.Context(), "INSERT INTO meta (key, value) VALUES ('x', 'y')"); err == nil {
				t.Error("reader pool accepted a write")
			}
		})
	}
}

func TestSQLite_DialectAndListen(t *testing.T) {
	s := mustOpen(t, "", Options{})
	if s.Dialect() != DialectSQLite || s.FlushParallelism() != 1 {
		t.Fatalf("Dialect, FlushParallelism = %q, %d", s.Dialect(), s.FlushParallelism())
	}
	if err := s.ListenJobs(t.Context(), func(runtime.JobNote) { t.Error("SQLite listener called") }); err != nil {
		t.Fatalf("ListenJobs = %v, want nil", err)
	}
	if _, err := s.WriteJobs(t.Context(), []runtime.JobRow{{ID: venue.JobID{9}, Owner: "o", Status: venue.StatusPending,
		Version: 1, Record: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
}

func TestSQLite_UnfinishedJobsUsesPartialIndex(t *testing.T) {
	s := mustOpen(t, "", Options{})
	rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+unfinishedJobsSQL())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		rows.Scan(&id, &parent, &unused, &detail)
		plan += detail + "\n"
	}
	if want := "USING INDEX jobs_unfinished"; !strings.Contains(plan, want) {
		t.Fatalf("plan %q does not use %s", plan, want)
	}
}

// TestSQLite_UpsertBuildsNoTableForStatuses checks the upsert's program for
// OpenEphemeral: with the statuses as a NOT IN list, SQLite built a table
// of them for every row written, for the partial index's condition.
func TestSQLite_UpsertBuildsNoTableForStatuses(t *testing.T) {
	s := mustOpen(t, "", Options{})
	args := make([]any, 14)
	rows, err := s.w.QueryContext(t.Context(), "EXPLAIN "+upsertSQL(2, "", false), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if op := fmt.Sprint(vals[1]); op == "OpenEphemeral" {
			t.Fatalf("the upsert's program opens a temporary table at step %v", vals[0])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSQLite_RelatedValuesStreamFromTheKey checks that the lattice query
// searches the primary key by path and sorts nothing: a scan of every row
// of the owner made a read of one value take 14 ms once its owner had
// 100,000, and a sort held a whole subtree, values and all, before the
// first row came out.
func TestSQLite_RelatedValuesStreamFromTheKey(t *testing.T) {
	s := mustOpen(t, "", Options{})
	fold := runtime.Fold{Path: "g/bot/sessions", Keep: []string{"g/bot/sessions/ab"}}
	queries := map[string]struct {
		query    func() (string, []any)
		searches int
	}{
		"value": {func() (string, []any) { return s.relatedValues("did:key:a", "w/a/b", "value") }, 2},
		"NULL":  {func() (string, []any) { return s.relatedValues("did:key:a", "w/a/b", "NULL") }, 2},
		// A write's: the rows at path and its ancestors, and whether any lie below.
		"paths and below": {func() (string, []any) { return s.pathsAndBelow("did:key:a", "w/a/b") }, 2},
		// An agent's record without its sessions but one: the rows at the
		// path, before the fold, the probe below it, the kept one, after.
		"folded": {func() (string, []any) { return s.foldedValues("did:key:a", "g/bot", fold, "value") }, 6},
	}
	for name, query := range queries {
		t.Run(name, func(t *testing.T) {
			q, args := query.query()
			rows, err := s.r.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				rows.Scan(&id, &parent, &unused, &detail)
				plan = append(plan, detail)
			}
			searches := 0
			for i, d := range plan {
				if i > 0 && plan[i-1] == "SCAN b" && d == "USE TEMP B-TREE FOR ORDER BY" {
					continue // the probe's one row, ordered for the merge
				}
				if strings.Contains(d, "TEMP B-TREE") || strings.Contains(d, "lattice_values") && !strings.Contains(d, "path") {
					t.Fatalf("plan %q: step %q sorts, or does not search by path", plan, d)
				}
				if strings.Contains(d, "lattice_values") {
					searches++
				}
			}
			if searches != query.searches {
				t.Fatalf("plan %q: want %d searches of lattice_values", plan, query.searches)
			}
		})
	}
}

// TestSQLite_RefusesAnotherProgramsDatabase: a file that is not a venue
// store is refused, naming the file, rather than filled with the venue's
// tables beside another program's.
func TestSQLite_RefusesAnotherProgramsDatabase(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "shop.db")
	db, err := dbsql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE customers (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	versioned := filepath.Join(dir, "versioned.db")
	db, err = dbsql.Open("sqlite", versioned)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE schema_version (v TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	borrowed := filepath.Join(dir, "borrowed.db")
	db, err = dbsql.Open("sqlite", borrowed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied BIGINT NOT NULL); CREATE TABLE people (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"another program's tables", foreign, "holds tables that are not the venue's (customers)"},
		{"a text file", text, "not a database"},
		{"another program's schema_version", versioned, "schema_version table is not the venue's"},
		{"an empty schema_version beside another program's tables", borrowed, "schema_version table is not the venue's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), tc.path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want the file and %q", err, tc.want)
			}
		})
	}
}
