package runtime_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// largeMap is a map of n entries, over the size whose index the engine
// keeps, with keys written in reverse order, some escaped, and extra, a
// member giving key k000000 again (as values stored before the venue
// refused such text may).
func largeMap(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{`)
	for i := n - 1; i >= 0; i-- {
		k := fmt.Sprintf("k%06d", i)
		if i%7 == 0 {
			k = `\u006b` + k[1:] // "k", escaped
		}
		fmt.Fprintf(&b, `"%s":{"n":%d,"s":"<%d>"},`, k, i, i%3)
	}
	b.WriteString(`"k000000":` + extra + `}`)
	return b.String()
}

// decodedPage is what a page of text is by decoding it: keys sorted, the
// last of a key's members, each entry as slice gives it.
func decodedPage(t *testing.T, text string, offset, limit int) (int, []string, []string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(m))
	keys = keys[min(offset, len(keys)):min(offset+limit, len(keys))]
	var entries []string
	for _, k := range keys {
		b, _ := json.Marshal(map[string]any{"key": k, "value": m[k]})
		entries = append(entries, string(b))
	}
	return len(m), keys, entries
}

// TestEngine_PagesOfALargeValue pages a large map stored whole, at its path
// and inside a value stored above it, through slice, list and count, as
// decoding it pages it; a change of the value, even one keeping its
// length, is paged as it is now.
func TestEngine_PagesOfALargeValue(t *testing.T) {
	h := mustEngine(t)
	before := largeMap(3000, `{"n":-1,"s":"<0>"}`)
	after := largeMap(3000, `{"n":-2,"s":"<0>"}`)
	if len(before) != len(after) || len(before) < 64<<10 {
		t.Fatalf("texts of %d and %d bytes", len(before), len(after))
	}
	for _, tc := range []struct {
		name, at, path, wrap string
	}{
		{"stored at its path", "w/big", "w/big", "%s"},
		{"stored inside a value above", "w/outer", "w/outer/in/big", `{"in":{"big":%s,"z":1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, text := range []string{before, before, after} {
				pin(t, h, tc.at, fmt.Sprintf(tc.wrap, text))
				for _, q := range [][2]int{{0, 5}, {1500, 1000}, {2998, 10}, {5000, 10}} {
					count, keys, entries := decodedPage(t, text, q[0], q[1])
					s, err := h.Slice(h.alice, tc.path, q[0], q[1])
					if err != nil || s.Count != count || len(s.Values) != len(entries) {
						t.Fatalf("slice %v: %d entries of %d, %v; want %d of %d", q, len(s.Values), s.Count, err, len(entries), count)
					}
					for i, v := range s.Values {
						if !jsonEqual(string(v), entries[i]) {
							t.Fatalf("slice %v: entry %d is %s, want %s", q, i, v, entries[i])
						}
					}
					l, err := h.List(h.alice, tc.path, q[0], q[1])
					if err != nil || l.Count != count || !slices.Equal(l.Keys, keys) && len(keys) > 0 {
						t.Fatalf("list %v: %d keys of %d, %v; want %d of %d", q, len(l.Keys), l.Count, err, len(keys), count)
					}
				}
				c, err := h.Count(h.alice, tc.path, "s")
				if err != nil || *c.Count != 3000 || c.Groups["<0>"].Count != 1000 || c.Groups["<1>"].Count != 1000 {
					t.Fatalf("count %+v %v", c, err)
				}
			}
		})
	}
}

// TestEngine_ListFieldsOfAMapStoredWhole: the fields of a map stored whole
// are read from the text the list loaded, and answer as a read of each
// field's path does: keys holding '/' or characters no path holds, fields
// missing, inside vectors, too large, nested too deep.
func TestEngine_ListFieldsOfAMapStoredWhole(t *testing.T) {
	h := mustEngine(t)
	deep := strings.Repeat("[", 1010) + strings.Repeat("]", 1010)
	table := `{"ada":{"name":"Ada","meta":{"born":1815},"list":[{"name":"x"}]},` +
		`"b":{"c":{"name":"below b"}},"b/c":{"name":"slash"},` +
		`"big":{"name":"` + strings.Repeat("x", 70_000) + `"},"deep":{"name":` + deep + `},` +
		`"ctl\u0001":{"name":1},"repl\ufffd":{"name":2},"":{"name":3},"..":{"name":4},` +
		`"num":7,"null":null,"k":{"name":"first"},"k":{"name":"last"}}`
	fields := []string{"name", "meta/born", "list/0/name", "list/1"}
	for _, tc := range []struct{ name, at, path, wrap string }{
		{"stored at its path", "w/table", "w/table", "%s"},
		{"stored inside a value above", "w/outer", "w/outer/in", `{"in":%s}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pin(t, h, tc.at, fmt.Sprintf(tc.wrap, table))
			res, err := h.ListFields(h.alice, tc.path, 0, 0, fields)
			if err != nil || res.Count != 12 {
				t.Fatalf("%+v %v", res, err)
			}
			for _, k := range res.Keys {
				for _, f := range fields {
					want := runtime.FieldValue{Value: json.RawMessage("null")}
					if r, err := h.Read(h.alice, tc.path+"/"+k+"/"+f, 64<<10); err == nil {
						want = runtime.FieldValue{Exists: r.Exists, Value: r.Value, Truncated: r.Truncated}
					}
					if got := res.Values[k][f]; !jsonEqual(string(got.Value), string(want.Value)) || got.Exists != want.Exists || got.Truncated != want.Truncated {
						t.Errorf("%q/%s: %+v, want %+v", k, f, got, want)
					}
				}
			}
			if got := res.Values["b/c"]["name"]; string(got.Value) != `"below b"` {
				t.Errorf("b/c/name is %s: a key holding '/' names the path through b", got.Value)
			}
		})
	}
}

// TestEngine_AppendCountsTheVectorItGrows: an append to a large vector
// answers the index of its element, whether the vector's length was noted
// by the append before it or not: after a write of another vector of the
// same size, and for a vector inside a value stored above it.
func TestEngine_AppendCountsTheVectorItGrows(t *testing.T) {
	h := mustEngine(t)
	ones := "[" + strings.Repeat("1,", 29_999) + "1]"      // 30,000 elements
	elevens := "[" + strings.Repeat("11,", 19_999) + "11]" // 20,000, as many bytes
	if len(ones) != len(elevens) {
		t.Fatalf("%d and %d bytes", len(ones), len(elevens))
	}
	for _, tc := range []struct{ name, at, path, wrap string }{
		{"stored at its path", "w/log", "w/log", "%s"},
		{"stored inside a value above", "w/doc", "w/doc/in/log", `{"in":{"log":%s}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range []struct {
				text string
				n    int
			}{{ones, 30_000}, {elevens, 20_000}, {ones, 30_000}} {
				pin(t, h, tc.at, fmt.Sprintf(tc.wrap, s.text))
				for i := range 3 {
					index, err := h.Append(h.alice, tc.path, json.RawMessage(`{"t":1}`))
					if err != nil || index != s.n+i {
						t.Fatalf("append %d: index %d, %v; want %d", i, index, err, s.n+i)
					}
				}
				if l, err := h.List(h.alice, tc.path, 0, 1); err != nil || l.Count != s.n+3 {
					t.Fatalf("list %+v %v", l, err)
				}
			}
		})
	}
}
