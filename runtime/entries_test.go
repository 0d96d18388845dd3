package runtime

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// The functions pages used before entries.go, kept as the oracle the
// index must agree with: they decode the whole value on every page.

func decodedSlicePage(v json.RawMessage, res *SliceResult, budget *pageBudget) error {
	res.Exists, res.Type = true, typeOf(v)
	switch res.Type {
	case "Map":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return err
		}
		keys := slices.Sorted(maps.Keys(m))
		res.Count = len(keys)
		for _, k := range page(keys, res.Offset, res.Limit) {
			if err := budget.take(k, len(m[k])); err != nil {
				return err
			}
			res.Values = append(res.Values, entry(k, m[k]))
		}
	case "Vector":
		var a []json.RawMessage
		if err := json.Unmarshal(v, &a); err != nil {
			return err
		}
		res.Count = len(a)
		for i, el := range page(a, res.Offset, res.Limit) {
			if err := budget.take(strconv.Itoa(res.Offset+i), len(el)); err != nil {
				return err
			}
			res.Values = append(res.Values, el)
		}
	}
	return nil
}

func decodedListPage(v json.RawMessage, res *ListResult, limit int) {
	res.Exists, res.Type = true, typeOf(v)
	switch res.Type {
	case "Map":
		var m map[string]json.RawMessage
		json.Unmarshal(v, &m)
		keys := slices.Sorted(maps.Keys(m))
		res.Count, res.Keys = len(keys), page(keys, res.Offset, limit)
		if res.Keys == nil {
			res.Keys = []string{}
		}
	case "Vector":
		var a []json.RawMessage
		json.Unmarshal(v, &a)
		res.Count = len(a)
	}
}

func decodedGroups(v json.RawMessage, field []string) (map[string]CountGroup, int, bool) {
	var entries []json.RawMessage
	switch typeOf(v) {
	case "Map":
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return nil, 0, false
		}
		entries = slices.Collect(maps.Values(m))
	case "Vector":
		if json.Unmarshal(v, &entries) != nil {
			return nil, 0, false
		}
	default:
		return nil, 0, false
	}
	groups, ok := groupEntries(len(entries), func(i int) json.RawMessage { return entries[i] }, field)
	return groups, len(entries), ok
}

func page[T any](s []T, offset, limit int) []T {
	if offset >= len(s) {
		return nil
	}
	return s[offset:min(len(s), offset+limit)]
}

// pageQuery is one request of a page: offset, limit and the page's bytes.
type pageQuery struct{ offset, limit, maxSize int }

// sameAnswers fails t unless slice, list and a grouped count of text answer
// as decoding it answered, for each query. The engine's cache keeps the
// index of a large text, so asking twice asks the kept index too.
func sameAnswers(t *testing.T, e *Engine, text string, queries []pageQuery) {
	t.Helper()
	v := json.RawMessage(text)
	for _, q := range queries {
		want, got := &SliceResult{Offset: q.offset, Limit: q.limit}, &SliceResult{Offset: q.offset, Limit: q.limit}
		wantErr := decodedSlicePage(v, want, e.pageBudget("w/x", q.offset, q.maxSize))
		gotErr := e.slicePage(v, got, e.pageBudget("w/x", q.offset, q.maxSize))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("slice %+v of %.200s:\n got %s, %v\nwant %s, %v", q, text, sliceText(got), gotErr, sliceText(want), wantErr)
		}
		wantL, gotL := &ListResult{Offset: q.offset}, &ListResult{Offset: q.offset}
		decodedListPage(v, wantL, q.limit)
		if _, err := e.listPage(v, gotL, q.limit); err != nil || !reflect.DeepEqual(gotL, wantL) {
			t.Fatalf("list %+v of %.200s:\n got %+v, %v\nwant %+v", q, text, gotL, err, wantL)
		}
	}
	sameFinds(t, e, v)
	for _, field := range [][]string{{"a"}, {"a", "b"}} {
		wantG, wantN, wantOK := decodedGroups(v, field)
		x, ok := e.entriesOf(v)
		if ok != wantOK || !ok {
			if ok != wantOK {
				t.Fatalf("entriesOf of %.200s: %v, want %v", text, ok, wantOK)
			}
			continue
		}
		gotG, gotOK := groupEntries(x.count(), func(i int) json.RawMessage { return x.value(v, i) }, field)
		if x.count() != wantN || gotOK != wantOK || !reflect.DeepEqual(gotG, wantG) {
			t.Fatalf("groups by %v of %.200s: %d %v %v, want %d %v %v", field, text, x.count(), gotG, gotOK, wantN, wantG, wantOK)
		}
	}
}

// sameFinds fails t unless the index finds each key of the map v, and
// some it lacks, as walk does, or leaves it to walk.
func sameFinds(t *testing.T, e *Engine, v json.RawMessage) {
	t.Helper()
	x, err := e.indexes.index(v)
	if err != nil || !x.isMap {
		return
	}
	keys := []string{"", "a", "zz", "\u0061", "k/1"}
	for i := 0; i < x.count(); i += 1 + x.count()/100 {
		k, _ := x.member(v, i)
		keys = append(keys, k, k+"x")
	}
	for _, k := range keys {
		if _, err := venue.ParsePath("w/" + k); err != nil {
			continue // no path segment
		}
		got, found, known := x.find(v, k)
		if !known && !x.twice {
			t.Fatalf("find %q in %.200s: unknown, though no key is given twice", k, v)
		}
		if !known {
			continue
		}
		if want, ok := walk(v, []string{k}); found != ok || string(got) != string(want) {
			t.Fatalf("find %q in %.200s: %s %v, walk %s %v", k, v, got, found, want, ok)
		}
	}
}

func sliceText(r *SliceResult) string {
	b, _ := json.Marshal(r)
	return string(b)
}

func testEngine() *Engine { return &Engine{indexes: newIndexCache(indexCacheBytes)} }

// TestEntryIndex_AnswersAsDecoding: slice, list and count answer as they did
// when they decoded the whole value, for keys that decode to other bytes
// than they are written with, keys given twice, nesting, white space, pages
// past the end and pages over budget.
func TestEntryIndex_AnswersAsDecoding(t *testing.T) {
	pages := []pageQuery{{0, 100, 1_000_000}, {1, 2, 1_000_000}, {2, 1000, 1_000_000}, {5, 10, 1_000_000}, {100, 1, 1_000_000},
		{0, 100, 10}, {1, 100, 10}, {0, 1, 1}}
	for _, tc := range []struct{ name, text string }{
		{"an empty map", `{}`},
		{"an empty vector", `[ ]`},
		{"keys out of order", `{"b":1,"a":2,"c":{"x":[1,2]},"B":true,"":null}`},
		{"bytewise, not by rune or case", `{"é":1,"z":2,"Z":3,"\u00e9x":4,"e":5,"日本":6,"😀":7,"ｚ":8}`},
		{"escapes decode", `{"\u0061":1,"b\"c":2,"\\":3,"\n":4,"\/":5,"a\u0000b":6,"<&>":7}`},
		{"an escaped key twice: the last", `{"a":1,"b":2,"\u0061":3}`},
		{"a key twice: the last, at its first key's place", `{"k":"first","j":0,"k":"last"}`},
		{"a key three times", `{"k":1,"k":2,"a":0,"k":3}`},
		{"lone surrogates are one key, U+FFFD", `{"\ud800":1,"\udc00":2,"\ufffd":3,"x":4}`},
		{"invalid UTF-8 is U+FFFD too", "{\"\xff\":1,\"a\xfeb\":2,\"\xef\xbf\xbd\":3,\"\xed\xa0\x80\":4}"},
		{"a surrogate pair is its rune", `{"\ud83d\ude00":1,"😀":2,"\uD83D\uDE00x":3}`},
		{"nested values are kept as written", `{"m":{"b":1, "a":[ 1 , {"x":"}"} ]},"s":"a,b}","n":-1.5e+3,"t":true,"f":false,"z":null}`},
		{"white space everywhere", " { \"b\" : [ 1 , 2 ] ,\n\t\"a\" :\r{ } } "},
		{"a vector of everything", `[1, "two", {"three":3}, [4], null, true, false, -0.5e-7, "\u00e9"]`},
		{"a vector of maps to group", `[{"a":1},{"a":"1"},{"a":{"b":2}},{"b":3},{"a":null},{"a":[1]},{"a":1,"a":2},"x"]`},
		{"a map of maps to group", `{"x":{"a":{"b":1}},"y":{"a":{"b":1}},"z":{"a":{"b":"\u0031"}},"w":{"a":true}}`},
		{"a large member over the budget", `{"a":"` + strings.Repeat("x", 50) + `","b":1}`},
		{"deeply nested", `{"d":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `,"a":1}`},
		{"not JSON", `{"a":1,}`},
		{"not JSON, a vector", `[1,,2]`},
		{"trailing text", `{"a":1} x`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sameAnswers(t, testEngine(), tc.text, pages)
		})
	}
}

// TestEntryIndex_LargeValuesAnswerAsDecoding runs random maps (a third of
// them giving no key twice, so that the index finds keys) and vectors
// large enough for their index to be kept, each asked twice, from the kept
// index the second time.
func TestEntryIndex_LargeValuesAnswerAsDecoding(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	e := testEngine()
	for i := range 12 {
		n := 200 + r.Intn(6000)
		text := randomMap(r, n, i%3 == 1)
		if i%3 == 2 {
			text = randomVector(r, n)
		}
		queries := []pageQuery{{0, 10, 1_000_000}, {n / 2, 1000, 1_000_000}, {n - 3, 10, 1_000_000}, {n + 5, 10, 1_000_000}, {3, 1000, 500}}
		t.Run(fmt.Sprintf("%d entries, %d bytes", n, len(text)), func(t *testing.T) {
			sameAnswers(t, e, text, queries)
			sameAnswers(t, e, text, queries)
		})
	}
	if e.indexes.lru.Len() == 0 {
		t.Fatal("no index was kept")
	}
}

// randomKeys are the keys random maps draw from, so that some come twice:
// plain, escaped, non-ASCII, and what decodes to U+FFFD.
var randomKeys = []string{`a`, `\u0061`, `b`, `é`, `\u00e9`, `\ud800`, `\ufffd`, "\xff", `\"`, `a\nb`, `日本`, `Z`, `\\`, `k/1`, ``}

// randomMap is a map of n entries, each key given once if unique.
func randomMap(r *rand.Rand, n int, unique bool) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(", "[:1+r.Intn(2)])
		}
		k := randomKeys[r.Intn(len(randomKeys))] + strconv.Itoa(r.Intn(n))
		if unique {
			k = randomKeys[r.Intn(len(randomKeys))] + strconv.Itoa(i)
		}
		fmt.Fprintf(&b, `"%s":%s`, k, randomValue(r))
	}
	b.WriteString("}")
	return b.String()
}

func randomVector(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(randomValue(r))
	}
	b.WriteString("]")
	return b.String()
}

func randomValue(r *rand.Rand) string {
	switch r.Intn(6) {
	case 0:
		return strconv.Itoa(r.Intn(1000) - 500)
	case 1:
		return `"s,}]` + strconv.Itoa(r.Intn(9)) + `\""`
	case 2:
		return fmt.Sprintf(`{"a":%d,"b":[1,{"c":"]"}]}`, r.Intn(4))
	case 3:
		return fmt.Sprintf(`{"a":{"b":"%d"}}`, r.Intn(3))
	case 4:
		return `[ true , null ]`
	}
	return `1.5e3`
}

// FuzzEntryIndex holds the index to decoding for any text: the same pages,
// counts and errors.
func FuzzEntryIndex(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":2}`, `{"a":1,"\u0061":2}`, `[1,[2],{"3":3}]`, `{"\ud800":1,"\udfff":2}`,
		"{\"\xff\":0}", ` { "a" : { "b" : [ ] } } `, `{"a":1,}`, `[`, `{"k":"v","k":"w"}`} {
		f.Add(s, 0, 2)
	}
	f.Fuzz(func(t *testing.T, text string, offset, limit int) {
		if t := typeOf(json.RawMessage(text)); t != "Map" && t != "Vector" {
			return
		}
		offset, limit = max(0, offset%64), 1+max(0, limit%64)
		sameAnswers(t, testEngine(), text, []pageQuery{{0, 1000, 1_000_000}, {offset, limit, 1_000_000}, {offset, limit, 20}})
	})
}
