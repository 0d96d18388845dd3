package runtime

import (
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestFinished(t *testing.T) {
	rec := func(b byte) *venue.Job { return &venue.Job{ID: venue.JobID{b}, Status: venue.StatusComplete} }
	t.Run("keeps records up to its size and drops the oldest", func(t *testing.T) {
		var f finished
		f.init(300)
		for b := byte(1); b <= 4; b++ {
			f.put(rec(b), 100)
		}
		if f.get(venue.JobID{1}) != nil || f.get(venue.JobID{2}) == nil || f.get(venue.JobID{4}) == nil {
			t.Fatalf("kept %d records of %d bytes: want the newest three", len(f.recs), f.size)
		}
	})
	t.Run("keeps a record that is read however many others come", func(t *testing.T) {
		var f finished
		f.init(300)
		f.put(rec(1), 100)
		for b := byte(2); b <= 40; b++ {
			if f.get(venue.JobID{1}) == nil {
				t.Fatalf("the record read over and over was dropped after %d others", b-2)
			}
			f.put(rec(b), 100)
		}
		if f.size > 300 {
			t.Fatalf("%d bytes kept, over the bound of 300", f.size)
		}
	})
	t.Run("forgets a deleted record", func(t *testing.T) {
		var f finished
		f.init(1000)
		f.put(rec(1), 10)
		f.forget(venue.JobID{1})
		if f.get(venue.JobID{1}) != nil || f.size != 0 {
			t.Fatalf("a forgotten record is still kept (%d bytes)", f.size)
		}
	})
	t.Run("does not keep a large record", func(t *testing.T) {
		var f finished
		f.init(finishedMaxSize)
		f.put(rec(1), finishedMaxRecord+1)
		if f.get(venue.JobID{1}) != nil {
			t.Fatal("a record over finishedMaxRecord was kept")
		}
	})
	t.Run("keeps nothing when off", func(t *testing.T) {
		var f finished
		f.init(0)
		f.put(rec(1), 10)
		if f.get(venue.JobID{1}) != nil {
			t.Fatal("an engine of several nodes kept a record")
		}
	})
	t.Run("forgotten ids do not pile up", func(t *testing.T) {
		var f finished
		f.init(1 << 20)
		for i := range 1000 {
			id := venue.JobID{byte(i), byte(i >> 8)}
			f.put(&venue.Job{ID: id}, 10)
			f.forget(id)
		}
		if len(f.order) > 64+2 {
			t.Fatalf("%d ids remembered for %d records", len(f.order), len(f.recs))
		}
	})
}
