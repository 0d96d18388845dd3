package storetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

const (
	alice = "did:key:alice"
	bob   = "did:key:bob"
)

func testWriteJobs(t *testing.T, s runtime.Store) {
	const (
		pending  = venue.StatusPending
		started  = venue.StatusStarted
		complete = venue.StatusComplete
	)
	type write struct {
		st      venue.JobStatus
		version int64
		tag     string
	}
	for _, tc := range []struct {
		name    string
		before  []write // applied first, in order
		write   write
		applied bool
		want    write // what is stored afterwards
	}{
		{"new job is inserted", nil, write{pending, 1, "a"}, true, write{pending, 1, "a"}},
		{"greater version replaces", []write{{pending, 1, "a"}}, write{started, 2, "b"}, true, write{started, 2, "b"}},
		{"skipped versions still replace", []write{{pending, 1, "a"}}, write{started, 5, "b"}, true, write{started, 5, "b"}},
		{"equal version is not applied", []write{{pending, 1, "a"}, {started, 2, "b"}}, write{started, 2, "c"}, false, write{started, 2, "b"}},
		{"lower version is not applied", []write{{pending, 1, "a"}, {started, 3, "b"}}, write{started, 2, "c"}, false, write{started, 3, "b"}},
		{"later version after COMPLETE is not applied", []write{{pending, 1, "a"}, {complete, 2, "b"}}, write{started, 3, "c"}, false, write{complete, 2, "b"}},
		{"later version after FAILED is not applied", []write{{pending, 1, "a"}, {venue.StatusFailed, 2, "b"}}, write{started, 3, "c"}, false, write{venue.StatusFailed, 2, "b"}},
		{"later version after CANCELLED is not applied", []write{{venue.StatusCancelled, 1, "a"}}, write{started, 2, "c"}, false, write{venue.StatusCancelled, 1, "a"}},
		{"later version after REJECTED is not applied", []write{{venue.StatusRejected, 1, "a"}}, write{complete, 9, "c"}, false, write{venue.StatusRejected, 1, "a"}},
		{"non-terminal interactive status is replaced", []write{{venue.StatusInputRequired, 3, "a"}}, write{started, 4, "b"}, true, write{started, 4, "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := newJobID()
			for _, w := range tc.before {
				if !mustWrite(t, s, job(id, alice, w.st, w.version, w.tag))[0] {
					t.Fatalf("setup write %v not applied", w)
				}
			}
			if got := mustWrite(t, s, job(id, alice, tc.write.st, tc.write.version, tc.write.tag))[0]; got != tc.applied {
				t.Fatalf("applied = %v, want %v", got, tc.applied)
			}
			sameRow(t, mustJob(t, s, id), job(id, alice, tc.want.st, tc.want.version, tc.want.tag))
		})
	}
	t.Run("empty batch returns no results", func(t *testing.T) {
		if applied := mustWrite(t, s); len(applied) != 0 {
			t.Fatalf("applied = %v", applied)
		}
	})
}

func testWriteJobsBatch(t *testing.T, s runtime.Store) {
	t.Run("mixed batch reports each row in input order", func(t *testing.T) {
		ids := [5]venue.JobID{newJobID(), newJobID(), newJobID(), newJobID(), newJobID()}
		mustWrite(t, s,
			job(ids[1], alice, venue.StatusPending, 1, "old"),
			job(ids[2], alice, venue.StatusComplete, 2, "done"),
			job(ids[3], bob, venue.StatusStarted, 2, "old"),
			job(ids[4], bob, venue.StatusPending, 1, "old"))
		batch := []runtime.JobRow{
			job(ids[3], bob, venue.StatusStarted, 2, "same version"), // not applied
			job(ids[0], alice, venue.StatusPending, 1, "new"),        // inserted
			job(ids[2], alice, venue.StatusStarted, 3, "after"),      // terminal: not applied
			job(ids[1], alice, venue.StatusStarted, 2, "next"),       // replaced
			job(ids[4], bob, venue.StatusComplete, 2, "next"),        // replaced
		}
		if got, want := mustWrite(t, s, batch...), []bool{false, true, false, true, true}; !slices.Equal(got, want) {
			t.Fatalf("applied = %v, want %v", got, want)
		}
		sameRow(t, mustJob(t, s, ids[0]), batch[1])
		sameRow(t, mustJob(t, s, ids[1]), batch[3])
		sameRow(t, mustJob(t, s, ids[2]), job(ids[2], alice, venue.StatusComplete, 2, "done"))
		sameRow(t, mustJob(t, s, ids[3]), job(ids[3], bob, venue.StatusStarted, 2, "old"))
		sameRow(t, mustJob(t, s, ids[4]), batch[4])
	})
	t.Run("large batch applies every row", func(t *testing.T) {
		rows := make([]runtime.JobRow, 300)
		for i := range rows {
			rows[i] = job(newJobID(), alice, venue.StatusPending, 1, "big")
		}
		for i, ok := range mustWrite(t, s, rows...) {
			if !ok {
				t.Fatalf("row %d not applied", i)
			}
		}
		next := make([]runtime.JobRow, len(rows))
		for i, r := range rows {
			next[i] = job(r.ID, alice, venue.StatusStarted, int64(1+i%2), "next") // odd rows move on
		}
		for i, ok := range mustWrite(t, s, next...) {
			if ok != (i%2 == 1) {
				t.Fatalf("row %d applied = %v", i, ok)
			}
		}
		sameRow(t, mustJob(t, s, rows[7].ID), next[7])
		sameRow(t, mustJob(t, s, rows[8].ID), rows[8])
	})
}

// testWriteJobsStored: a row marked Stored only ever replaces its job's
// row; with none there (another node deleted the job) it is not applied,
// and the job stays deleted. Unmarked rows beside it go in as ever, in a
// batch of one statement and in one of several.
func testWriteJobsStored(t *testing.T, s runtime.Store) {
	stored := func(r runtime.JobRow) runtime.JobRow { r.Stored = true; return r }
	t.Run("a marked row of a job not stored is not applied", func(t *testing.T) {
		id := newJobID()
		if got := mustWrite(t, s, stored(job(id, alice, venue.StatusComplete, 3, "back")))[0]; got {
			t.Fatal("applied = true: the deleted job is back")
		}
		_, err := s.Job(t.Context(), id)
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("a marked row replaces as the ordering rule says", func(t *testing.T) {
		id := newJobID()
		mustWrite(t, s, job(id, alice, venue.StatusPending, 1, "a"))
		next := stored(job(id, alice, venue.StatusStarted, 2, "b"))
		if got := mustWrite(t, s, next)[0]; !got {
			t.Fatal("applied = false")
		}
		if got := mustWrite(t, s, stored(job(id, alice, venue.StatusStarted, 2, "c")))[0]; got {
			t.Fatal("a marked row of the same version applied")
		}
		sameRow(t, mustJob(t, s, id), next)
	})
	for _, n := range []int{5, 150} {
		t.Run(fmt.Sprintf("a batch of %d mixes marked and unmarked rows", n), func(t *testing.T) {
			batch := make([]runtime.JobRow, n)
			want := make([]bool, n)
			for i := range batch {
				id := newJobID()
				switch i % 3 {
				case 0: // new: inserted
					batch[i], want[i] = job(id, bob, venue.StatusPending, 1, "new"), true
				case 1: // stored and there: replaced
					mustWrite(t, s, job(id, bob, venue.StatusPending, 1, "old"))
					batch[i], want[i] = stored(job(id, bob, venue.StatusComplete, 2, "done")), true
				case 2: // stored, then deleted: stays away
					batch[i] = stored(job(id, bob, venue.StatusComplete, 2, "back"))
				}
			}
			if got := mustWrite(t, s, batch...); !slices.Equal(got, want) {
				t.Fatalf("applied = %v, want %v", got, want)
			}
			for i, r := range batch {
				if want[i] {
					sameRow(t, mustJob(t, s, r.ID), r)
				} else {
					_, err := s.Job(t.Context(), r.ID)
					wantCode(t, err, venue.ENOTFOUND)
				}
			}
		})
	}
}

func testWriteJobsRace(t *testing.T, s runtime.Store) {
	for _, tc := range []struct {
		name   string
		status func(g int) venue.JobStatus
	}{
		{"first of racing writers at one version wins", func(int) venue.JobStatus { return venue.StatusStarted }},
		{"first of racing terminal writers wins", func(g int) venue.JobStatus {
			return []venue.JobStatus{venue.StatusComplete, venue.StatusFailed, venue.StatusCancelled}[g%3]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := newJobID()
			mustWrite(t, s, job(id, alice, venue.StatusPending, 1, "start"))
			const writers = 16
			var (
				wg     sync.WaitGroup
				wins   atomic.Int32
				winner atomic.Int32
			)
			for g := range writers {
				wg.Go(func() {
					applied, err := s.WriteJobs(t.Context(), []runtime.JobRow{job(id, alice, tc.status(g), 2, fmt.Sprint(g))})
					if err != nil {
						t.Errorf("writer %d: %v", g, err)
						return
					}
					if applied[0] {
						wins.Add(1)
						winner.Store(int32(g))
					}
				})
			}
			wg.Wait()
			if wins.Load() != 1 {
				t.Fatalf("%d writers applied version 2, want exactly 1", wins.Load())
			}
			g := int(winner.Load())
			sameRow(t, mustJob(t, s, id), job(id, alice, tc.status(g), 2, fmt.Sprint(g)))
		})
	}
}

func testJob(t *testing.T, s runtime.Store) {
	t.Run("unknown job is not found", func(t *testing.T) {
		_, err := s.Job(t.Context(), newJobID())
		wantCode(t, err, venue.ENOTFOUND)
	})
	t.Run("record comes back byte for byte", func(t *testing.T) {
		r := job(newJobID(), alice, venue.StatusPending, 1, "x")
		r.Record = []byte("{\"b\":2,   \"a\":[1,2.50,\"\\u002f\"]}\t\r\n")
		mustWrite(t, s, r)
		sameRow(t, mustJob(t, s, r.ID), r)
	})
}

func testListJobs(t *testing.T, s runtime.Store) {
	var ids []venue.JobID
	var rows []runtime.JobRow
	for i := range 5 {
		r := job(newJobID(), alice, venue.StatusPending, int64(1+i), fmt.Sprint(i))
		rows, ids = append(rows, r), append(ids, r.ID)
	}
	rand.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	mustWrite(t, s, rows...)
	mustWrite(t, s, job(newJobID(), bob, venue.StatusPending, 1, "bob"), job(newJobID(), bob, venue.StatusPending, 1, "bob"))
	ids = sortedIDs(ids)
	byID := map[venue.JobID]runtime.JobRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	for _, tc := range []struct {
		name          string
		owner         string
		offset, limit int
		want          []venue.JobID
		total         int
	}{
		{"negative limit returns all in id order", alice, 0, -1, ids, 5},
		{"first page", alice, 0, 2, ids[:2], 5},
		{"middle page", alice, 2, 2, ids[2:4], 5},
		{"last page is partial", alice, 4, 2, ids[4:], 5},
		{"offset past the end returns none with total", alice, 10, 2, nil, 5},
		{"zero limit returns none with total", alice, 0, 0, nil, 5},
		{"offset with no limit returns the rest", alice, 3, -1, ids[3:], 5},
		{"other owner sees only its jobs", bob, 0, -1, nil, 2},
		{"unknown owner has none", "did:key:nobody", 0, -1, nil, 0},
	} {
		for _, withRecords := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s (records %v)", tc.name, withRecords), func(t *testing.T) {
				got, total, err := s.ListJobs(t.Context(), tc.owner, tc.offset, tc.limit, withRecords)
				if err != nil {
					t.Fatal(err)
				}
				if total != tc.total {
					t.Fatalf("total = %d, want %d", total, tc.total)
				}
				if tc.owner == bob {
					if len(got) != 2 {
						t.Fatalf("got %d rows, want 2", len(got))
					}
					return
				}
				checkPage(t, got, tc.want, byID, withRecords)
			})
		}
	}
}

func testJobStatusCounts(t *testing.T, s runtime.Store) {
	moving := job(newJobID(), alice, venue.StatusPending, 1, "moves")
	mustWrite(t, s, moving, job(newJobID(), alice, venue.StatusPending, 1, "p"), job(newJobID(), bob, venue.StatusPending, 1, "b"))
	for i := range 3 {
		mustWrite(t, s, job(newJobID(), alice, venue.StatusComplete, 3, fmt.Sprint(i)))
	}
	mustWrite(t, s, job(newJobID(), alice, venue.StatusFailed, 3, "f"))
	mustWrite(t, s, job(moving.ID, alice, venue.StatusStarted, 2, "moved"))
	for _, tc := range []struct {
		name  string
		owner string
		want  map[venue.JobStatus]int
	}{
		{"by the status each job has now", alice, map[venue.JobStatus]int{
			venue.StatusPending: 1, venue.StatusStarted: 1, venue.StatusComplete: 3, venue.StatusFailed: 1}},
		{"another owner's own", bob, map[venue.JobStatus]int{venue.StatusPending: 1}},
		{"an owner with no jobs has no statuses", "did:key:nobody", map[venue.JobStatus]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.JobStatusCounts(t.Context(), tc.owner)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func checkPage(t *testing.T, got []runtime.JobRow, want []venue.JobID, byID map[venue.JobID]runtime.JobRow, withRecords bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i, r := range got {
		w := byID[want[i]]
		if !withRecords {
			if r.Record != nil {
				t.Fatalf("row %d has a record though none was asked for", i)
			}
			w.Record = nil
		}
		sameRow(t, r, w)
	}
}

func testUnfinishedJobs(t *testing.T, s runtime.Store) {
	var want []venue.JobID
	byID := map[venue.JobID]runtime.JobRow{}
	statuses := []venue.JobStatus{venue.StatusPending, venue.StatusStarted, venue.StatusComplete, venue.StatusFailed,
		venue.StatusCancelled, venue.StatusRejected, venue.StatusPaused, venue.StatusInputRequired, venue.StatusAuthRequired}
	for i, st := range statuses {
		r := job(newJobID(), []string{alice, bob}[i%2], st, 1, "u")
		mustWrite(t, s, r)
		byID[r.ID] = r
		if !st.Terminal() {
			want = append(want, r.ID)
		}
	}
	t.Run("returns every non-terminal job in id order with records", func(t *testing.T) {
		got, err := s.UnfinishedJobs(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		checkPage(t, got, sortedIDs(want), byID, true)
	})
}

func testDeleteJob(t *testing.T, s runtime.Store) {
	id := newJobID()
	mustWrite(t, s, job(id, alice, venue.StatusPending, 1, "d"))
	t.Run("other owner's delete is not found and keeps the job", func(t *testing.T) {
		wantCode(t, s.DeleteJob(t.Context(), bob, id), venue.ENOTFOUND)
		mustJob(t, s, id)
	})
	t.Run("unknown job is not found", func(t *testing.T) {
		wantCode(t, s.DeleteJob(t.Context(), alice, newJobID()), venue.ENOTFOUND)
	})
	t.Run("owner's delete removes the job and its messages", func(t *testing.T) {
		if _, err := s.AddJobMessage(t.Context(), id, []byte(`"hello"`)); err != nil {
			t.Fatal(err)
		}
		wantCode(t, s.DeleteJob(t.Context(), alice, id), "")
		_, err := s.Job(t.Context(), id)
		wantCode(t, err, venue.ENOTFOUND)
		mustWrite(t, s, job(id, alice, venue.StatusPending, 1, "again"))
		if msg, err := s.TakeJobMessage(t.Context(), id); err != nil || msg != nil {
			t.Fatalf("TakeJobMessage after delete = %q, %v; want nil, nil", msg, err)
		}
	})
	t.Run("second delete is not found", func(t *testing.T) {
		wantCode(t, s.DeleteJob(t.Context(), alice, id), "")
		wantCode(t, s.DeleteJob(t.Context(), alice, id), venue.ENOTFOUND)
	})
}

// timedJob is a row whose id begins with its creation ms, as the engine's
// ids do, created at created and last updated at updated.
func timedJob(owner string, st venue.JobStatus, created, updated int64) runtime.JobRow {
	r := job(venue.JobIDAt(created, rand.Uint64()), owner, st, 1, "p")
	r.Created, r.Updated = created, updated
	return r
}

func testPruneJobs(t *testing.T, s runtime.Store) {
	const cutoff = 1700000000000
	var old []venue.JobID
	keep := map[string]runtime.JobRow{}
	for i, st := range []venue.JobStatus{venue.StatusComplete, venue.StatusFailed, venue.StatusCancelled, venue.StatusRejected} {
		r := timedJob([]string{alice, bob}[i%2], st, cutoff-60_000-int64(i), cutoff-1000)
		mustWrite(t, s, r)
		old = append(old, r.ID)
	}
	for name, r := range map[string]runtime.JobRow{
		"ended at the cutoff":                 timedJob(alice, venue.StatusComplete, cutoff-60_000, cutoff),
		"created before, ended after":         timedJob(alice, venue.StatusComplete, cutoff-60_000, cutoff+5),
		"unfinished, however old":             timedJob(alice, venue.StatusPaused, cutoff-60_000, cutoff-50_000),
		"waiting for its caller, however old": timedJob(bob, venue.StatusInputRequired, cutoff-60_000, cutoff-50_000),
		"new":                                 timedJob(bob, venue.StatusComplete, cutoff+10, cutoff+20),
	} {
		mustWrite(t, s, r)
		keep[name] = r
	}
	// A message queued while the job ran, and left when it ended.
	messaged := timedJob(alice, venue.StatusStarted, cutoff-70_000, cutoff-70_000)
	mustWrite(t, s, messaged)
	if _, err := s.AddJobMessage(t.Context(), messaged.ID, []byte(`"left behind"`)); err != nil {
		t.Fatal(err)
	}
	messaged.Status, messaged.Version, messaged.Updated = venue.StatusComplete, 2, cutoff-1
	mustWrite(t, s, messaged)
	old = append(old, messaged.ID)
	t.Run("deletes finished jobs ended before the cutoff, a batch at a time, lowest ids first", func(t *testing.T) {
		first, err := s.PruneJobs(t.Context(), cutoff, 3)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := s.PruneJobs(t.Context(), cutoff, 3)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := append(first, rest...), sortedIDs(old); !slices.Equal(sortedIDs(got), want) || !slices.Equal(sortedIDs(first), want[:3]) {
			t.Fatalf("pruned %s then %s, want %s in id order", first, rest, want)
		}
		for _, id := range old {
			_, err := s.Job(t.Context(), id)
			wantCode(t, err, venue.ENOTFOUND)
		}
	})
	t.Run("keeps the rest", func(t *testing.T) {
		for name, r := range keep {
			if got, err := s.Job(t.Context(), r.ID); err != nil || !bytes.Equal(got.Record, r.Record) {
				t.Errorf("%s: %v", name, err)
			}
		}
		if ids, err := s.PruneJobs(t.Context(), cutoff, 10); err != nil || len(ids) != 0 {
			t.Fatalf("a second pass pruned %s, %v", ids, err)
		}
	})
	t.Run("a pruned job's messages go with it", func(t *testing.T) {
		mustWrite(t, s, job(messaged.ID, alice, venue.StatusPending, 1, "again"))
		if msg, err := s.TakeJobMessage(t.Context(), messaged.ID); err != nil || msg != nil {
			t.Fatalf("TakeJobMessage after prune = %q, %v; want nil, nil", msg, err)
		}
	})
}
