package preview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeReader is a lattice of JSON texts by path; a path in big reads as
// truncated, with the listing given.
type fakeReader struct {
	values map[string]string
	big    map[string]ReadResult
	keys   func(path string, limit int) (int, []string, error)
	err    error // returned by every Read, if set
}

func (f fakeReader) Read(_ context.Context, path string, maxSize int) (ReadResult, error) {
	if f.err != nil {
		return ReadResult{}, f.err
	}
	if r, ok := f.big[path]; ok {
		return r, nil
	}
	v, ok := f.values[path]
	if !ok {
		return ReadResult{}, nil
	}
	return ReadResult{Exists: true, Value: []byte(v)}, nil
}

func (f fakeReader) Keys(_ context.Context, path string, limit int) (int, []string, error) {
	return f.keys(path, limit)
}

func TestInspect(t *testing.T) {
	r := fakeReader{
		values: map[string]string{"w/a": `{"a":1,"b":[true,null]}`, "w/list": `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]`, "w/s": `"hello"`, "w/bad": `{`},
		big: map[string]ReadResult{
			"w/map":  {Exists: true, Truncated: true, Type: "Map", Size: 2_000_000},
			"w/vec":  {Exists: true, Truncated: true, Type: "Vector", Size: 3_000_000},
			"w/str":  {Exists: true, Truncated: true, Type: "String", Size: 1_500_000},
			"w/num":  {Exists: true, Truncated: true, Type: "Number", Size: 1_200_000},
			"w/many": {Exists: true, Truncated: true, Type: "Map"}, // j past what one read gathers: no size
		},
		keys: func(path string, limit int) (int, []string, error) {
			if limit != summaryKeys {
				return 0, nil, errors.New("listed more keys than a summary shows")
			}
			switch path {
			case "w/map":
				return 3, []string{"alpha", "beta", "gamma"}, nil
			case "w/many":
				return 5000, []string{"k1", "k2"}, nil
			}
			return 40000, nil, nil
		},
	}
	for _, tc := range []struct {
		name  string
		paths []string
		opts  Options
		want  string
	}{
		{"one path is bare", []string{"w/a"}, Options{}, `{a: 1, b: [true, null]}`},
		{"labelled paths share the budget", []string{"w/list", "w/s", "w/none"}, Options{Budget: 90, Label: true},
			"w/list: [1, 2, 3, … /* 12 more */]\nw/s: \"hello\"\nw/none: /* absent */"},
		{"compact labels", []string{"w/s", "w/none"}, Options{Compact: true, Label: true}, "w/s:\"hello\"\nw/none:/*absent*/"},
		{"a budget under the least counts as the least", []string{"w/a"}, Options{Budget: 1}, `{…}`},
		{"a large map names the keys that fit", []string{"w/map"}, Options{Budget: 50}, `{… /* 3 keys, 2000000 bytes: alpha, … */}`},
		{"a large map of unknown size", []string{"w/many"}, Options{}, `{… /* 5000 keys: k1, k2, … */}`},
		{"a large vector", []string{"w/vec"}, Options{}, `[… /* 40000 items, 3000000 bytes */]`},
		{"a large string", []string{"w/str"}, Options{}, `"…" /* 1500000 bytes */`},
		{"a large scalar", []string{"w/num"}, Options{}, `… /* number, 1200000 bytes */`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Inspect(context.Background(), r, tc.paths, tc.opts)
			if err != nil || got != tc.want {
				t.Fatalf("Inspect(%v) = %q, %v, want %q", tc.paths, got, err, tc.want)
			}
		})
	}
}

func TestInspect_Errors(t *testing.T) {
	denied := errors.New("denied")
	for _, tc := range []struct {
		name  string
		r     fakeReader
		paths []string
		want  string
	}{
		{"no paths", fakeReader{}, nil, "1 to 1000 paths"},
		{"too many paths", fakeReader{}, make([]string, MaxPaths+1), "1 to 1000 paths"},
		{"a reader's error", fakeReader{err: denied}, []string{"w/a"}, "denied"},
		{"a value that is not JSON", fakeReader{values: map[string]string{"w/bad": `{`}}, []string{"w/bad"}, "value at w/bad: invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Inspect(context.Background(), tc.r, tc.paths, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := Inspect(context.Background(), fakeReader{err: denied}, []string{"w/a"}, Options{}); !errors.Is(err, denied) {
		t.Fatalf("a reader's error comes back as %v, not as it was", err)
	}
}

// sizedReader holds one vector of n bytes at every path, honouring maxSize,
// and counts the bytes it hands out.
type sizedReader struct {
	n    int
	read *int
}

func (s sizedReader) Read(_ context.Context, path string, maxSize int) (ReadResult, error) {
	if s.n > maxSize {
		return ReadResult{Exists: true, Truncated: true, Type: "Vector", Size: s.n}, nil
	}
	v := []byte("[" + strings.Repeat("1,", (s.n-2)/2) + "1]")
	*s.read += len(v)
	return ReadResult{Exists: true, Value: v}, nil
}

func (s sizedReader) Keys(context.Context, string, int) (int, []string, error) {
	return s.n / 2, nil, nil
}

func TestInspect_ReadsAtMostReadTotal(t *testing.T) {
	read := 0
	paths := make([]string, 40)
	for i := range paths {
		paths[i] = fmt.Sprintf("w/v%d", i)
	}
	text, err := Inspect(context.Background(), sizedReader{n: ReadMax - 10, read: &read}, paths, Options{Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if read > ReadTotal {
		t.Fatalf("read %d bytes for one inspect, more than ReadTotal (%d)", read, ReadTotal)
	}
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "[1, 1") || !strings.Contains(lines[len(lines)-1], "not read") {
		t.Fatalf("first path %.40q, last %.40q: want the first rendered and the last not read", lines[0], lines[len(lines)-1])
	}
	t.Run("values too large to read whole count whole", func(t *testing.T) {
		read := 0
		text, err := Inspect(context.Background(), sizedReader{n: 8 * ReadMax, read: &read}, paths, Options{Budget: 4000})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(text, "not read"); got != len(paths)-2 {
			t.Fatalf("%d paths not read, want all but the first two (16 MB of 8 MB values)", got)
		}
	})
}

// countingReader counts the reads and listings it passes on.
type countingReader struct {
	Reader
	reads, lists int
}

func (c *countingReader) Read(ctx context.Context, path string, maxSize int) (ReadResult, error) {
	c.reads++
	return c.Reader.Read(ctx, path, maxSize)
}

func (c *countingReader) Keys(ctx context.Context, path string, limit int) (int, []string, error) {
	c.lists++
	return c.Reader.Keys(ctx, path, limit)
}

// TestInspect_ReadsARepeatedPathOnce: a path listed again is read and
// listed once, and each of its lines shows what the path shows in a list
// of different paths of the same length.
func TestInspect_ReadsARepeatedPathOnce(t *testing.T) {
	lattice := fakeReader{
		values: map[string]string{"w/a": `{"a":1,"b":[true,null]}`, "w/s": `"hello"`, "w/t": `"there"`},
		big:    map[string]ReadResult{"j": {Exists: true, Truncated: true, Type: "Map"}}, // past what one read gathers
		keys:   func(string, int) (int, []string, error) { return 800_000, []string{"0x01"}, nil },
	}
	thousand := make([]string, MaxPaths)
	for i := range thousand {
		thousand[i] = "j"
	}
	for _, tc := range []struct {
		name                 string
		paths, distinct      []string // distinct: as many different paths, whose lines the repeats take
		from                 []int    // which line of distinct each line of paths shows
		wantReads, wantLists int
	}{
		{"a path twice among others", []string{"w/a", "w/s", "w/a"}, []string{"w/a", "w/s", "w/t"}, []int{0, 1, 0}, 2, 0},
		{"j a thousand times", thousand, nil, nil, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countingReader{Reader: lattice}
			got, err := Inspect(context.Background(), r, tc.paths, Options{Budget: 90, Label: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.reads != tc.wantReads || r.lists != tc.wantLists {
				t.Fatalf("%d reads and %d listings, want %d and %d", r.reads, r.lists, tc.wantReads, tc.wantLists)
			}
			lines := strings.Split(got, "\n")
			if tc.distinct == nil {
				if len(lines) != len(tc.paths) || strings.Count(got, "j: {… /* 800000 keys") != len(tc.paths) {
					t.Fatalf("%d lines, not one preview of j each: %.200q", len(lines), got)
				}
				return
			}
			apart, err := Inspect(context.Background(), lattice, tc.distinct, Options{Budget: 90, Label: true})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(apart, "\n")
			for i, k := range tc.from {
				if lines[i] != want[k] {
					t.Fatalf("line %d is %q, want %q", i, lines[i], want[k])
				}
			}
		})
	}
}

// TestInspect_CountsValuesOfUnknownSize: a value too large whose size the
// reader does not know (j or a past what one read gathers, under a
// thousand names such as did:x1/a, did:x2/a, ...) counts as ReadMax
// against ReadTotal, so one inspect makes at most ReadTotal/ReadMax such
// reads.
func TestInspect_CountsValuesOfUnknownSize(t *testing.T) {
	paths := make([]string, MaxPaths)
	big := map[string]ReadResult{}
	for i := range paths {
		paths[i] = fmt.Sprintf("did:x%d/a", i)
		big[paths[i]] = ReadResult{Exists: true, Truncated: true, Type: "Map"}
	}
	r := &countingReader{Reader: fakeReader{big: big, keys: func(string, int) (int, []string, error) { return 5000, nil, nil }}}
	text, err := Inspect(context.Background(), r, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := ReadTotal / ReadMax; r.reads != want || r.lists != want || strings.Count(text, "not read") != len(paths)-want {
		t.Fatalf("%d reads, %d listings, %d paths not read; want %d, %d and the rest", r.reads, r.lists, strings.Count(text, "not read"), want, want)
	}
}
