package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// Run runs the suite against stores made by open, which must return a fresh,
// empty store, bounding each owner's values at MaxUserValuesBytes and assets
// at MaxUserAssetsBytes, and close it in t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) runtime.Store) {
	groups := []struct {
		name string
		test func(t *testing.T, s runtime.Store)
	}{
		{"WriteJobs", testWriteJobs},
		{"WriteJobsBatch", testWriteJobsBatch},
		{"WriteJobsRace", testWriteJobsRace},
		{"WriteJobsStored", testWriteJobsStored},
		{"Job", testJob},
		{"ListJobs", testListJobs},
		{"JobStatusCounts", testJobStatusCounts},
		{"UnfinishedJobs", testUnfinishedJobs},
		{"DeleteJob", testDeleteJob},
		{"PruneJobs", testPruneJobs},
		{"JobMessages", testJobMessages},
		{"Assets", testAssets},
		{"ListAssets", testListAssets},
		{"AssetsUsage", testAssetsUsage},
		{"Content", testContent},
		{"Secrets", testSecrets},
		{"ValueRows", testValueRows},
		{"UpdateValues", testUpdateValues},
		{"UpdateValuesConcurrent", testUpdateValuesConcurrent},
		{"Folds", testFolds},
		{"ValuesUsage", testValuesUsage},
		{"Meta", testMeta},
		{"Users", testUsers},
		{"TokenIDs", testTokenIDs},
		{"CancelledContext", testCancelledContext},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) { g.test(t, open(t)) })
	}
}

// newJobID returns a random id; tests that need an order sort ids.
func newJobID() venue.JobID {
	var id venue.JobID
	rand.Read(id[:])
	return id
}

// job returns a row whose record names its status, version and tag, with
// odd spacing so that a store which reformats JSON is caught.
func job(id venue.JobID, owner string, st venue.JobStatus, version int64, tag string) runtime.JobRow {
	rec := fmt.Sprintf("{ \"id\" : %q,\"status\":%q , \"v\":%d,\"tag\":%q, \"ü\":\"\\u00fc\" }\n", id, st, version, tag)
	return runtime.JobRow{ID: id, Owner: owner, Status: st, Version: version,
		Created: 1700000000000, Updated: 1700000000000 + version, Record: []byte(rec)}
}

func mustWrite(t *testing.T, s runtime.Store, rows ...runtime.JobRow) []bool {
	t.Helper()
	applied, err := s.WriteJobs(t.Context(), rows)
	if err != nil {
		t.Fatalf("WriteJobs: %v", err)
	}
	if len(applied) != len(rows) {
		t.Fatalf("WriteJobs returned %d results for %d rows", len(applied), len(rows))
	}
	return applied
}

func mustJob(t *testing.T, s runtime.Store, id venue.JobID) runtime.JobRow {
	t.Helper()
	r, err := s.Job(t.Context(), id)
	if err != nil {
		t.Fatalf("Job(%s): %v", id, err)
	}
	return r
}

// sameRow fails unless got is want, record byte for byte.
func sameRow(t *testing.T, got, want runtime.JobRow) {
	t.Helper()
	if got.ID != want.ID || got.Owner != want.Owner || got.Status != want.Status || got.Version != want.Version ||
		got.Created != want.Created || got.Updated != want.Updated || !bytes.Equal(got.Record, want.Record) {
		t.Fatalf("stored row differs\n got: %s %s %s v%d %d %d %q\nwant: %s %s %s v%d %d %d %q",
			got.ID, got.Owner, got.Status, got.Version, got.Created, got.Updated, got.Record,
			want.ID, want.Owner, want.Status, want.Version, want.Created, want.Updated, want.Record)
	}
}

// wantCode fails unless err carries code ("" means no error).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := venue.ErrorCode(err); got != code {
		t.Fatalf("error code = %q, want %q (err: %v)", got, code, err)
	}
}

func sortedIDs(ids []venue.JobID) []venue.JobID {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b venue.JobID) int { return bytes.Compare(a[:], b[:]) })
	return ids
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func testCancelledContext(t *testing.T, s runtime.Store) {
	ctx := cancelled()
	id := newJobID()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"WriteJobs fails", func() error {
			_, err := s.WriteJobs(ctx, []runtime.JobRow{job(id, alice, venue.StatusPending, 1, "c")})
			return err
		}},
		{"Job fails", func() error { _, err := s.Job(ctx, id); return err }},
		{"ListJobs fails", func() error { _, _, err := s.ListJobs(ctx, alice, 0, -1, true); return err }},
		{"PutSecret fails", func() error { return s.PutSecret(ctx, alice, "x", []byte("x"), 1, 0) }},
		{"ValueRows fails", func() error { _, err := valueRows(ctx, s, alice, "w"); return err }},
		{"NewContent fails", func() error { _, err := s.NewContent(ctx, [32]byte{}, "did:key:closed"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || venue.ErrorCode(err) == venue.ENOTFOUND {
				t.Fatalf("err = %v, want a context error", err)
			}
		})
	}
	t.Run("cancelled write stored nothing", func(t *testing.T) {
		_, err := s.Job(t.Context(), id)
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("a context ending mid-call reads as ended", func(t *testing.T) { endingMidCall(t, s) })
}

// endingMidCall ends the context of calls at moments spread over their
// run, as a client leaving does (net/http cancels the request's context):
// whatever the call was doing then, its error must say the context ended,
// never read as the store's failure. database/sql answers a commit whose
// context ended with ErrTxDone, and SQLite a statement it interrupted with
// "interrupted".
func endingMidCall(t *testing.T, s runtime.Store) {
	rows := make([]runtime.JobRow, 200)
	for i := range rows {
		rows[i] = job(newJobID(), bob, venue.StatusComplete, 1, "m")
	}
	mustWrite(t, s, rows...)
	calls := map[string]func(ctx context.Context) error{
		"ListJobs":        func(ctx context.Context) error { _, _, err := s.ListJobs(ctx, bob, 0, -1, true); return err },
		"JobStatusCounts": func(ctx context.Context) error { _, err := s.JobStatusCounts(ctx, bob); return err },
		"Job":             func(ctx context.Context) error { _, err := s.Job(ctx, rows[0].ID); return err },
		"WriteJobs": func(ctx context.Context) error {
			_, err := s.WriteJobs(ctx, []runtime.JobRow{job(newJobID(), bob, venue.StatusPending, 1, "w")})
			return err
		},
	}
	for name, call := range calls {
		took := timed(t, call)
		ended := 0
		for i := range 300 {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(took*time.Duration(i%30)/20, cancel)
			err := call(ctx)
			cancel()
			if err != nil {
				ended++
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: the context ended mid-call, err = %v (code %s), want one that says so", name, err, venue.ErrorCode(err))
				}
			}
		}
		t.Logf("%s (%v a call): %d of 300 calls ended early", name, took, ended)
	}
}

// timed returns how long call takes, best of five.
func timed(t *testing.T, call func(ctx context.Context) error) time.Duration {
	best := time.Hour
	for range 5 {
		start := time.Now()
		if err := call(t.Context()); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	return best
}
