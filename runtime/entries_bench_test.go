package runtime

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// bigMap is a map of n entries as core:write stores it, {"k000000":0,...},
// its keys in random order (keys written in order sort faster).
func bigMap(n int) json.RawMessage {
	return mapOf(rand.New(rand.NewSource(1)).Perm(n))
}

// mapOf is a map of the keys k%06d of ks, in that order.
func mapOf(ks []int) json.RawMessage {
	b := []byte{'{'}
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"k%06d":%d`, k, i)
	}
	return append(b, '}')
}

// ordered is 0, 1, ... n-1.
func ordered(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func bigVector(n int) json.RawMessage {
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `%d`, i)
	}
	return append(b, ']')
}

// BenchmarkSlicePage pages 10 entries at offset 1000 of a map of 250,000
// entries (4 MB) and a vector of as many: decoded whole as pages were
// before, indexed on every page (a new value, or a small one), and from the
// index kept for the value (every page after the first).
//
//	go test ./runtime -run '^$' -bench SlicePage -benchmem
func BenchmarkSlicePage(b *testing.B) {
	for _, v := range []struct {
		name string
		text json.RawMessage
	}{{"map", bigMap(250_000)}, {"map in key order", mapOf(ordered(250_000))}, {"vector", bigVector(250_000)}} {
		for _, way := range []struct {
			name string
			page func(e *Engine, res *SliceResult) error
		}{
			{"decoded", func(e *Engine, res *SliceResult) error {
				return decodedSlicePage(v.text, res, e.pageBudget("w/big", res.Offset, DefaultMaxReadSize))
			}},
			{"indexed", func(e *Engine, res *SliceResult) error {
				e.indexes = nil
				return e.slicePage(v.text, res, e.pageBudget("w/big", res.Offset, DefaultMaxReadSize))
			}},
			{"kept", func(e *Engine, res *SliceResult) error {
				return e.slicePage(v.text, res, e.pageBudget("w/big", res.Offset, DefaultMaxReadSize))
			}},
		} {
			b.Run(v.name+"/"+way.name, func(b *testing.B) {
				e := testEngine()
				b.ReportAllocs()
				b.SetBytes(int64(len(v.text)))
				for b.Loop() {
					res := &SliceResult{Offset: 1000, Limit: 10}
					if err := way.page(e, res); err != nil || len(res.Values) != 10 {
						b.Fatal(res, err)
					}
				}
			})
		}
	}
}

// BenchmarkListPage lists 10 keys of the same map, counting it.
func BenchmarkListPage(b *testing.B) {
	text := bigMap(250_000)
	b.Run("decoded", func(b *testing.B) {
		for b.Loop() {
			decodedListPage(text, &ListResult{}, 10)
		}
	})
	b.Run("kept", func(b *testing.B) {
		e := testEngine()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.listPage(text, &ListResult{}, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAppendCount is what an append to a vector of 290,000 small maps
// (4.6 MB) spends counting it: scanning it, as it did, or looking up the
// length the append before it noted.
//
//	go test ./runtime -run '^$' -bench AppendCount
func BenchmarkAppendCount(b *testing.B) {
	v := []byte{'['}
	for i := range 290_000 {
		v = fmt.Appendf(v, `{"t":%d,"m":"ok"},`, i)
	}
	v[len(v)-1] = ']'
	b.Run("scanned", func(b *testing.B) {
		for b.Loop() {
			if n := elementCount(v); n != 290_000 {
				b.Fatal(n)
			}
		}
	})
	b.Run("noted", func(b *testing.B) {
		c := newIndexCache(indexCacheBytes)
		c.noteElements(v, 290_000)
		for b.Loop() {
			if n := c.elements(v); n != 290_000 {
				b.Fatal(n)
			}
		}
	})
}
