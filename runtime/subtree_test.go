package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// valueCountingStore counts the value bytes its ValueRows hands out.
type valueCountingStore struct {
	sqlStore
	valueBytes atomic.Int64
}

func (s *valueCountingStore) ValueRows(ctx context.Context, owner, path string, sizesOnly bool, fn func(runtime.ValueRow) error) error {
	return s.sqlStore.ValueRows(ctx, owner, path, sizesOnly, func(r runtime.ValueRow) error {
		s.valueBytes.Add(int64(len(r.Value)))
		return fn(r)
	})
}

func (s *valueCountingStore) UpdatePaths(ctx context.Context, owner, path string, fn func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error)) error {
	return s.sqlStore.UpdatePaths(ctx, owner, path, func(rows []runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		for _, r := range rows {
			s.valueBytes.Add(int64(len(r.Value)))
		}
		return fn(rows)
	})
}

// pinAll stores each path's value as a row of its own.
func pinAll(t *testing.T, h *harness, rows map[string]string) {
	t.Helper()
	for p, v := range rows {
		pin(t, h, p, v)
	}
}

func TestEngine_ReadAssemblesRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows map[string]string
		path string
		want string
	}{
		{"one level", map[string]string{"w/m/b": `2`, "w/m/a": `1`}, "w/m", `{"a":1,"b":2}`},
		{"nested maps close in place", map[string]string{"w/m/a/x": `1`, "w/m/a/y/z": `2`, "w/m/b": `3`}, "w/m",
			`{"a":{"x":1,"y":{"z":2}},"b":3}`},
		{"a map entry sorts as its key and '/'", map[string]string{"w/m/k/x": `1`, "w/m/k-b": `2`, "w/m/k0": `3`}, "w/m",
			`{"k-b":2,"k":{"x":1},"k0":3}`},
		{"keys escaped as encoding/json does", map[string]string{`w/m/a"b`: `1`, "w/m/<t>": `2`}, "w/m",
			`{"\u003ct\u003e":2,"a\"b":1}`},
		{"values kept as stored", map[string]string{"w/m/s": `"<b>"`, "w/m/v": `[1,{"a":null}]`}, "w/m",
			`{"s":"<b>","v":[1,{"a":null}]}`},
		{"a whole namespace", map[string]string{"w/a": `1`, "w/b/c": `2`}, "w", `{"a":1,"b":{"c":2}}`},
		{"a map inside", map[string]string{"w/m/a/x": `1`, "w/m/b": `3`}, "w/m/a", `{"x":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mustEngine(t)
			pinAll(t, h, tc.rows)
			res, err := h.Read(h.alice, tc.path, 0)
			if err != nil || !res.Exists || string(res.Value) != tc.want || res.ValueBytes != len(tc.want) {
				t.Fatalf("Read(%s) = %s (%d bytes), %v; want %s", tc.path, res.Value, res.ValueBytes, err, tc.want)
			}
			if !json.Valid(res.Value) {
				t.Fatalf("not JSON: %s", res.Value)
			}
			list, err := h.List(h.alice, tc.path, 0, 0)
			if keys := objectKeys(t, res.Value); err != nil || list.Count != len(keys) || !slices.Equal(list.Keys, keys) {
				t.Fatalf("List(%s) = %+v, %v; want the keys of %s in its order", tc.path, list, err, res.Value)
			}
		})
	}
}

// objectKeys returns the member names of a JSON object in their order.
func objectKeys(t *testing.T, v json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(v))
	var keys []string
	dec.Token() // {
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestEngine_ReadBoundsWhatItAssembles(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := &valueCountingStore{sqlStore: st}
	h := mustEngineOn(t, cs)
	value := `"` + strings.Repeat("x", 10_000) + `"`
	for i := range 100 {
		pin(t, h, fmt.Sprintf("w/big/%03d", i), value)
	}
	whole, err := h.Read(h.alice, "w/big", runtime.MaxReadSize)
	if err != nil || whole.Truncated || whole.ValueBytes < 100*len(value) {
		t.Fatalf("whole read: %d bytes, truncated %v, %v", whole.ValueBytes, whole.Truncated, err)
	}
	cs.valueBytes.Store(0)
	res, err := h.Read(h.alice, "w/big", 50_000)
	if err != nil || !res.Exists || !res.Truncated || res.Type != "Map" || string(res.Value) != "null" {
		t.Fatalf("bounded read: %+v, %v", res, err)
	}
	if res.Size != whole.ValueBytes || res.ValueBytes != whole.ValueBytes {
		t.Fatalf("truncated size %d/%d, want %d", res.Size, res.ValueBytes, whole.ValueBytes)
	}
	if got := cs.valueBytes.Load(); got > 50_000+int64(len(value)) {
		t.Fatalf("a read of at most 50000 bytes loaded %d bytes of values", got)
	}
	t.Run("list reads no values", func(t *testing.T) {
		cs.valueBytes.Store(0)
		res, err := h.List(h.alice, "w/big", 98, 10)
		if err != nil || res.Count != 100 || strings.Join(res.Keys, ",") != "098,099" {
			t.Fatalf("List = %+v, %v", res, err)
		}
		if got := cs.valueBytes.Load(); got != 0 {
			t.Fatalf("list loaded %d bytes of values", got)
		}
	})
	t.Run("slice reads no further than its page", func(t *testing.T) {
		cs.valueBytes.Store(0)
		res, err := h.Slice(h.alice, "w/big", 10, 3)
		if err != nil || res.Count != 100 || res.Type != "Map" || len(res.Values) != 3 ||
			string(res.Values[0]) != `{"key":"010","value":`+value+`}` {
			t.Fatalf("Slice = %d of %d, %v", len(res.Values), res.Count, err)
		}
		if got := cs.valueBytes.Load(); got > 14*int64(len(value)) {
			t.Fatalf("a slice of entries 10 to 12 loaded %d bytes of values, more than the first 14 entries", got)
		}
	})
	t.Run("a page over the read size is refused", func(t *testing.T) {
		_, err := h.Slice(h.alice, "w/big", 0, 1000)
		wantCode(t, err, venue.EINVALID)
	})
	t.Run("one entry over the read size is a page of its own", func(t *testing.T) {
		pin(t, h, "w/one/a", `"`+strings.Repeat("z", runtime.DefaultMaxReadSize)+`"`)
		pin(t, h, "w/one/b", `1`)
		res, err := h.Slice(h.alice, "w/one", 0, 1)
		if err != nil || len(res.Values) != 1 || res.Count != 2 {
			t.Fatalf("Slice = %d of %d, %v", len(res.Values), res.Count, err)
		}
		_, err = h.Slice(h.alice, "w/one", 0, 2)
		wantCode(t, err, venue.EINVALID)
	})
	t.Run("appending to it loads no value", func(t *testing.T) {
		cs.valueBytes.Store(0)
		_, err := h.Append(h.alice, "w/big", json.RawMessage(`1`))
		wantCode(t, err, venue.EINVALID)
		if got := cs.valueBytes.Load(); got != 0 {
			t.Fatalf("append loaded %d bytes of values", got)
		}
	})
	t.Run("replacing it loads no value", func(t *testing.T) {
		cs.valueBytes.Store(0)
		if err := h.Write(h.alice, "w/big", json.RawMessage(`{"small":true}`)); err != nil {
			t.Fatal(err)
		}
		if got := cs.valueBytes.Load(); got != 0 {
			t.Fatalf("the write loaded %d bytes of values", got)
		}
		if res, _ := h.Read(h.alice, "w/big", 0); string(res.Value) != `{"small":true}` {
			t.Fatalf("after the write: %s", res.Value)
		}
	})
	t.Run("other reads get a coded error", func(t *testing.T) {
		big := `"` + strings.Repeat("y", runtime.DefaultMaxValueSize-10) + `"`
		for i := range runtime.MaxReadSize/runtime.DefaultMaxValueSize + 1 {
			pin(t, h, fmt.Sprintf("o/huge/%d", i), big)
		}
		_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "o/huge"})
		wantCode(t, err, venue.ETOOLARGE)
	})
}

func TestEngine_SliceStoredMaps(t *testing.T) {
	h := mustEngine(t)
	pinAll(t, h, map[string]string{"w/m/a/x": `1`, "w/m/a/y": `2`, "w/m/b": `3`, "w/m/c/d/e": `4`, "w/whole": `{"b":2,"a":1}`})
	for _, tc := range []struct {
		name          string
		path          string
		offset, limit int
		count         int
		want          []string
	}{
		{"every entry", "w/m", 0, 0, 3, []string{`{"key":"a","value":{"x":1,"y":2}}`, `{"key":"b","value":3}`, `{"key":"c","value":{"d":{"e":4}}}`}},
		{"a page", "w/m", 1, 1, 3, []string{`{"key":"b","value":3}`}},
		{"past the end", "w/m", 5, 1, 3, nil},
		{"a map stored whole", "w/whole", 0, 0, 2, []string{`{"key":"a","value":1}`, `{"key":"b","value":2}`}},
		{"inside an entry", "w/m/c", 0, 0, 1, []string{`{"key":"d","value":{"e":4}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Slice(h.alice, tc.path, tc.offset, tc.limit)
			if err != nil || !res.Exists || res.Count != tc.count || res.Type != "Map" {
				t.Fatalf("Slice = %+v, %v", res, err)
			}
			var got []string
			for _, v := range res.Values {
				got = append(got, string(v))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("values\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestEngine_SliceJobsBoundsItsPage(t *testing.T) {
	h := mustEngine(t)
	big := `{"text":"` + strings.Repeat("x", 600_000) + `"}`
	for range 3 {
		h.invoke(t, "v/test/ops/echo", big, time.Minute)
	}
	res, err := h.Slice(h.alice, "j", 0, 1)
	if err != nil || len(res.Values) != 1 || res.Count != 3 {
		t.Fatalf("a page of one job: %d of %d, %v", len(res.Values), res.Count, err)
	}
	_, err = h.Slice(h.alice, "j", 0, 3)
	wantCode(t, err, venue.EINVALID)
}

func TestEngine_SliceUpToMaxSize(t *testing.T) {
	h := mustEngine(t)
	ten := `"` + strings.Repeat("x", 98) + `"` // 100 bytes
	pin(t, h, "w/vec", "["+strings.Repeat(ten+",", 9)+ten+"]")
	pin(t, h, "w/whole", `{"a":`+ten+`,"b":`+ten+`,"c":`+ten+`}`)
	pinAll(t, h, map[string]string{"w/rows/a": ten, "w/rows/b": ten, "w/rows/c": ten})
	for _, tc := range []struct {
		name       string
		path       string
		limit, max int
		values     int
		code       string
	}{
		{"a vector within the page", "w/vec", 3, 400, 3, ""},
		{"a vector over it", "w/vec", 5, 400, 0, venue.EINVALID},
		{"one element over it is a page of its own", "w/vec", 1, 10, 1, ""},
		{"a map stored whole within it", "w/whole", 3, 400, 3, ""},
		{"a map stored whole over it", "w/whole", 3, 250, 0, venue.EINVALID},
		{"a map stored as rows over it", "w/rows", 3, 250, 0, venue.EINVALID},
		{"the default is 1 MB", "w/vec", 10, 0, 10, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.SliceUpTo(h.alice, tc.path, 0, tc.limit, tc.max)
			if tc.code != "" {
				wantCode(t, err, tc.code)
				return
			}
			if err != nil || len(res.Values) != tc.values {
				t.Fatalf("SliceUpTo = %d values, %v; want %d", len(res.Values), err, tc.values)
			}
		})
	}
}
