package runtime

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

func TestIndexCache_KeepsLargeTextsByContent(t *testing.T) {
	big := bigMap(5000) // over minIndexedText
	if len(big) < minIndexedText {
		t.Fatalf("the test map is %d bytes, under %d", len(big), minIndexedText)
	}
	changed := bytes.Replace(big, []byte(`"k000002"`), []byte(`"k000000"`), 1) // one key twice: one entry fewer
	for _, tc := range []struct {
		name  string
		first []byte
		then  []byte
		kept  bool // then is answered from the index of first
	}{
		{"the same text is found", big, bytes.Clone(big), true},
		{"a text of the same length changed is not", big, changed, false},
		{"a small text is never kept", []byte(`{"a":1}`), []byte(`{"a":1}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newIndexCache(indexCacheBytes)
			x1, err := c.index(tc.first)
			if err != nil {
				t.Fatal(err)
			}
			x2, err := c.index(tc.then)
			if err != nil {
				t.Fatal(err)
			}
			if kept := x1 == x2; kept != tc.kept {
				t.Fatalf("answered from the kept index: %v, want %v", kept, tc.kept)
			}
			want, _ := indexEntries(tc.then)
			if x2.count() != want.count() {
				t.Fatalf("count %d, want %d", x2.count(), want.count())
			}
		})
	}
}

func TestIndexCache_BoundedInBytes(t *testing.T) {
	x, _ := indexEntries(bigVector(10_000))
	one := indexCost(x)
	c := newIndexCache(3*one + one/2)
	var texts [][]byte
	for i := range 5 {
		text := fmt.Appendf(bigVector(10_000), "%*s", i, "") // the same elements, other texts
		texts = append(texts, text)
		if _, err := c.index(text); err != nil {
			t.Fatal(err)
		}
		if c.used > c.max {
			t.Fatalf("%d bytes kept, past %d", c.used, c.max)
		}
	}
	if c.lru.Len() != 3 || len(c.byKey) != 3 {
		t.Fatalf("%d indexes kept (%d by key), want the 3 that fit", c.lru.Len(), len(c.byKey))
	}
	if c.get(c.key(texts[0])) != nil {
		t.Fatal("the least recently used index was kept")
	}
	if c.get(c.key(texts[4])) == nil {
		t.Fatal("the latest index was dropped")
	}
	small := newIndexCache(one - 1)
	small.put(small.key(texts[0]), x)
	if small.used != 0 || small.lru.Len() != 0 {
		t.Fatal("an index larger than the whole cache was kept")
	}
}

// TestIndexCache_ConcurrentReaders: run with -race.
func TestIndexCache_ConcurrentReaders(t *testing.T) {
	x, _ := indexEntries(bigVector(10_000))
	c := newIndexCache(2 * indexCost(x))
	texts := [][]byte{bigMap(10_000), bigVector(10_000), append(bigVector(10_000), ' ')}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				text := texts[(g+i)%len(texts)]
				x, err := c.index(text)
				if err != nil || x.count() != 10_000 {
					t.Errorf("count %d, %v", x.count(), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestIndexCache_OneIndexPerTextAtOnce: reads of one new text arriving
// together make its index once and all get it.
func TestIndexCache_OneIndexPerTextAtOnce(t *testing.T) {
	c := newIndexCache(indexCacheBytes)
	big := bigMap(50_000)
	got := make([]*entryIndex, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			x, err := c.index(bytes.Clone(big))
			if err != nil {
				t.Error(err)
			}
			got[i] = x
		})
	}
	wg.Wait()
	if c.made != 1 || len(c.pending) != 0 {
		t.Fatalf("%d indexes made, %d left pending; want 1 and 0", c.made, len(c.pending))
	}
	for i, x := range got {
		if x != got[0] {
			t.Fatalf("reader %d got an index of its own", i)
		}
	}
}
