package sql

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// benchRecord is the size of a typical job record with a small input and
// output and its prev chain.
var benchRecord = []byte(`{"id":"0x0000000000000000000000000000000000","status":"COMPLETE","created":1700000000000,` +
	`"updated":1700000000123,"operation":"v/ops/json/merge","op":"v/ops/json/merge","name":"json:merge",` +
	`"caller":"did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK","input":{"a":{"x":1,"y":[1,2,3]},` +
	`"b":{"y":"two","z":true}},"output":{"result":{"x":1,"y":"two","z":true}},"prev":{"status":"STARTED",` +
	`"created":1700000000000,"updated":1700000000101,"prev":{"status":"PENDING","created":1700000000000,` +
	`"updated":1700000000000}}}`)

// benchBatches makes the rows of one batch: n new jobs, then the same jobs
// completed. seq keeps ids unique across iterations.
func benchBatches(seq *atomic.Uint64, n int) (pending, done []runtime.JobRow) {
	pending, done = make([]runtime.JobRow, n), make([]runtime.JobRow, n)
	for i := range n {
		var id venue.JobID
		binary.BigEndian.PutUint64(id[:8], seq.Add(1))
		pending[i] = runtime.JobRow{ID: id, Owner: "did:key:bench", Status: venue.StatusPending, Version: 1,
			Created: 1, Updated: 1, Record: benchRecord}
		done[i] = pending[i]
		done[i].Status, done[i].Version, done[i].Updated = venue.StatusComplete, 2, 2
	}
	return pending, done
}

func writeBoth(tb testing.TB, s *Store, pending, done []runtime.JobRow) {
	for _, rows := range [][]runtime.JobRow{pending, done} {
		applied, err := s.WriteJobs(tb.Context(), rows)
		if err != nil || !applied[0] {
			tb.Fatalf("WriteJobs = %v, %v", applied, err)
		}
	}
}

// BenchmarkWriteJobs measures the hot path: each op inserts a batch of
// PENDING jobs and then completes them, two WriteJobs calls. With
// stored=true the completing rows are marked Stored, as the engine marks
// the later rows of a job whose first row it wrote (one invoked without
// wait, or running past the lazy delay): the guarded upsert.
func BenchmarkWriteJobs(b *testing.B) {
	for _, o := range openers(b) {
		for _, n := range []int{1, 32, 256} {
			for _, stored := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/batch=%d/stored=%v", o.name, n, stored), func(b *testing.B) {
					s := o.open(b)
					var seq atomic.Uint64
					for b.Loop() {
						pending, done := benchBatches(&seq, n) // about 1% of an op
						for i := range done {
							done[i].Stored = stored
						}
						writeBoth(b, s, pending, done)
					}
					b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// BenchmarkWriteJobsParallel measures how throughput grows with concurrent
// WriteJobs calls, which is what FlushParallelism tunes.
func BenchmarkWriteJobsParallel(b *testing.B) {
	for _, o := range openers(b) {
		for _, n := range []int{1, 32} {
			for _, p := range []int{1, 2, 4, 8, 16} {
				b.Run(fmt.Sprintf("%s/batch=%d/flushers=%d", o.name, n, p), func(b *testing.B) {
					benchParallel(b, o.open(b), n, p)
				})
			}
		}
	}
}

func benchParallel(b *testing.B, s *Store, n, flushers int) {
	var seq, calls atomic.Uint64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range flushers {
		wg.Go(func() {
			for calls.Add(1) <= uint64(b.N) {
				pending, done := benchBatches(&seq, n)
				writeBoth(b, s, pending, done)
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(2*n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReads measures the hot reads: a job by id, and the values
// related to a lattice path (core:read, values/read).
func BenchmarkReads(b *testing.B) {
	for _, o := range openers(b) {
		s := o.open(b)
		var seq atomic.Uint64
		pending, done := benchBatches(&seq, 1)
		writeBoth(b, s, pending, done)
		if err := s.UpdateValues(b.Context(), "did:key:bench", "w/notes/today", func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			return []runtime.ValueRow{{Path: "w/notes/today", Value: []byte(`["write","test"]`)}}, nil, nil
		}); err != nil {
			b.Fatal(err)
		}
		b.Run(o.name+"/job", func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Job(b.Context(), done[0].ID); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(o.name+"/values", func(b *testing.B) {
			for b.Loop() {
				n := 0
				err := s.ValueRows(b.Context(), "did:key:bench", "w/notes/today", false, func(runtime.ValueRow) error { n++; return nil })
				if err != nil || n != 1 {
					b.Fatal(n, err)
				}
			}
		})
		if err := s.UpdateValues(b.Context(), "did:key:bench", "w/many", func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
			rows := make([]runtime.ValueRow, 10_000)
			for i := range rows {
				rows[i] = runtime.ValueRow{Path: fmt.Sprintf("w/many/%05d", i), Value: []byte(`1`)}
			}
			return rows, nil, nil
		}); err != nil {
			b.Fatal(err)
		}
		b.Run(o.name+"/values-beside-10k", func(b *testing.B) {
			for b.Loop() {
				n := 0
				err := s.ValueRows(b.Context(), "did:key:bench", "w/notes/today", false, func(runtime.ValueRow) error { n++; return nil })
				if err != nil || n != 1 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkLargeValues measures what a page of a large map costs the store
// (see runtime/entries.go): a map of 250,000 entries (4 MB) stored whole,
// loaded with its value and by size only, and the same entries stored as
// 100,000 rows, whose paths a page streams to count them.
//
//	go test ./sql -run '^$' -bench LargeValues
func BenchmarkLargeValues(b *testing.B) {
	for _, o := range openers(b) {
		s := o.open(b)
		whole := []byte{'{'}
		for i := range 250_000 {
			whole = fmt.Appendf(whole, `"k%06d":%d,`, i, i)
		}
		whole[len(whole)-1] = '}'
		put(b, s, []runtime.ValueRow{{Path: "w/big", Value: whole}})
		rows := make([]runtime.ValueRow, 100_000)
		for i := range rows {
			rows[i] = runtime.ValueRow{Path: fmt.Sprintf("w/rows/k%06d", i), Value: fmt.Appendf(nil, "%d", i)}
		}
		put(b, s, rows)
		for _, r := range []struct {
			name, path string
			sizesOnly  bool
			want       int
		}{
			{"whole", "w/big", false, 1}, {"whole-sizes", "w/big", true, 1},
			{"rows", "w/rows", false, 100_000}, {"rows-sizes", "w/rows", true, 100_000},
		} {
			b.Run(o.name+"/"+r.name, func(b *testing.B) {
				for b.Loop() {
					n := 0
					err := s.ValueRows(b.Context(), "did:key:bench", r.path, r.sizesOnly, func(runtime.ValueRow) error { n++; return nil })
					if err != nil || n != r.want {
						b.Fatal(n, err)
					}
				}
			})
		}
	}
}

// put stores rows in one update of the map their paths share.
func put(b *testing.B, s *Store, rows []runtime.ValueRow) {
	path := rows[0].Path
	if len(rows) > 1 {
		path = path[:strings.LastIndexByte(path, '/')]
	}
	err := s.UpdateValues(b.Context(), "did:key:bench", path, func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		return rows, nil, nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPruneJobs measures one batch of the retention's pruning (500
// finished jobs, oldest first) in a table that also holds 100,000 newer
// jobs: how long the writer waits behind each batch. Every op first writes
// back the 500 rows it deletes, which the reported prune time leaves out.
func BenchmarkPruneJobs(b *testing.B) {
	for _, o := range openers(b) {
		b.Run(o.name, func(b *testing.B) {
			s := o.open(b)
			const old, newer = 500, 100_000
			rows := func(from, n int, ms int64) []runtime.JobRow {
				out := make([]runtime.JobRow, n)
				for i := range out {
					out[i] = runtime.JobRow{ID: venue.JobIDAt(ms, uint64(from+i)), Owner: "did:key:bench", Status: venue.StatusComplete, Version: 3,
						Created: ms, Updated: ms, Record: benchRecord}
				}
				return out
			}
			for i := 0; i < newer; i += 500 {
				if _, err := s.WriteJobs(b.Context(), rows(i, 500, 1_800_000_000_000)); err != nil {
					b.Fatal(err)
				}
			}
			var pruning time.Duration
			for b.Loop() {
				if _, err := s.WriteJobs(b.Context(), rows(0, old, 1_700_000_000_000)); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				ids, err := s.PruneJobs(b.Context(), 1_750_000_000_000, old)
				pruning += time.Since(start)
				if err != nil || len(ids) != old {
					b.Fatalf("pruned %d, %v", len(ids), err)
				}
			}
			b.ReportMetric(float64(pruning.Microseconds())/float64(b.N)/1000, "ms/batch")
		})
	}
}

// BenchmarkWriteValue measures one write of a small value (replacing the
// one before it at the same path, as a counter or a note would be), with
// the store's bound on a user's values and without: the bound's cost is
// two lookups of the owner's usage per write; counting it is a trigger on
// every row written, in both.
func BenchmarkWriteValue(b *testing.B) {
	for _, o := range openers(b) {
		for _, bounded := range []bool{false, true} {
			s := o.open(b)
			s.maxValues = 0
			name := o.name + "/unbounded"
			if bounded {
				s.maxValues, name = 1<<30, o.name+"/bounded"
			}
			b.Run(name, func(b *testing.B) {
				i := 0
				for b.Loop() {
					i++
					put(b, s, []runtime.ValueRow{{Path: fmt.Sprintf("w/notes/n%03d", i%100), Value: fmt.Appendf(nil, `{"n":%d,"text":"a note of a few words"}`, i)}})
				}
			})
		}
	}
}
