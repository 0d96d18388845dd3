package runtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

func TestEngine_Read(t *testing.T) {
	h := mustEngine(t)
	job := h.invoke(t, "v/test/ops/echo", `{"x": 1}`, time.Minute)
	h.PutSecret(h.alice, "KEY", secretValue)
	asset, _ := h.RegisterAsset(h.alice, []byte(`{"name": "doc", "tags": ["a", "b"]}`))
	pin(t, h, "w/notes/today", `"write tests"`)
	pin(t, h, "w/notes/tomorrow", `{"plan": ["ship"]}`)
	pin(t, h, "w/notesx", `1`)
	for _, tc := range []struct {
		name, path string
		exists     bool
		want       string // a substring of the value, or the whole value if it starts with "="
	}{
		{"catalog entry", "v/ops/grid/job-status", true, `"adapter":"grid:jobStatus"`},
		{"inside a catalog entry", "v/ops/grid/job-status/operation/adapter", true, `="grid:jobStatus"`},
		{"the catalog", "v/ops", true, `"grid"`},
		{"venue info", "v/info/did", true, `="` + h.Identity().DID + `"`},
		{"test ops are under v/test", "v/test/ops/echo/name", true, `="Echo"`},
		{"a job", "j/" + job.ID.String(), true, `"status":"COMPLETE"`},
		{"inside a job", "j/" + job.ID.String() + "/output/x", true, `=1`},
		{"all jobs", "j", true, job.ID.String()},
		{"a value stored whole", "w/notes/today", true, `="write tests"`},
		{"a value assembled from below", "w/notes", true, `={"today":"write tests","tomorrow":{"plan":["ship"]}}`},
		{"inside a stored value", "w/notes/tomorrow/plan/0", true, `="ship"`},
		{"a sibling with a common prefix stays apart", "w/notesx", true, `=1`},
		{"secrets show names, never values", "s", true, `"KEY":{"secret":true,"updated":`},
		{"a secret shows only that it exists", "s/KEY", true, `"secret":true`},
		{"inside what a secret shows", "s/KEY/secret", true, `=true`},
		{"nothing inside a secret but what it shows", "s/KEY/value", false, ""},
		{"an asset", "a/" + asset.Hex(), true, `"name": "doc"`},
		{"inside an asset", "a/" + asset.Hex() + "/tags/1", true, `="b"`},
		{"absent", "w/nothing/here", false, ""},
		{"absent job", "j/" + strings.Repeat("0", 32), false, ""},
		{"index past the end", "w/notes/tomorrow/plan/5", false, ""},
		{"an index with a leading zero names no element", "w/notes/tomorrow/plan/00", false, ""},
		{"an index with a sign names no element", "w/notes/tomorrow/plan/+0", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Read(h.alice, tc.path, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.Exists != tc.exists {
				t.Fatalf("exists %v, want %v (value %s)", res.Exists, tc.exists, res.Value)
			}
			if strings.Contains(string(res.Value), secretValue) {
				t.Fatal("a read returned a secret value")
			}
			got := string(res.Value)
			if want, whole := strings.CutPrefix(tc.want, "="); whole && got != want && !jsonEqual(got, want) {
				t.Fatalf("value %s, want %s", got, want)
			} else if !whole && !strings.Contains(got, tc.want) {
				t.Fatalf("value %s lacks %s", got, tc.want)
			}
			if tc.exists && res.ValueBytes != len(res.Value) {
				t.Fatalf("valueBytes %d for %d bytes", res.ValueBytes, len(res.Value))
			}
		})
	}
}

func TestEngine_ReadIsPerCaller(t *testing.T) {
	h := mustEngine(t)
	pin(t, h, "w/private", `"alice only"`)
	h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
	for _, p := range []string{"w/private", "w"} {
		if res, _ := h.Read(h.bob, p, 0); res.Exists {
			t.Fatalf("bob reads alice's %s: %s", p, res.Value)
		}
	}
	if res, _ := h.Read(h.bob, "j", 0); string(res.Value) != "{}" {
		t.Fatalf("bob's j is %s", res.Value)
	}
}

func TestEngine_ReadTruncatesLargeValues(t *testing.T) {
	h := mustEngine(t)
	pin(t, h, "w/big", `"`+strings.Repeat("x", 500)+`"`)
	res, err := h.Read(h.alice, "w/big", 100)
	if err != nil || !res.Exists || !res.Truncated || res.Type != "String" || res.ValueBytes != 502 || string(res.Value) != "null" {
		t.Fatalf("got %+v %v", res, err)
	}
}

func TestEngine_ReadRejectsBadPaths(t *testing.T) {
	h := mustEngine(t)
	for _, p := range []string{"", "w//x", "w/../s", "x/y", "w/a/", "./w"} {
		_, err := h.Read(h.alice, p, 0)
		wantCode(t, err, venue.EINVALID)
	}
}

func TestEngine_Slice(t *testing.T) {
	h := mustEngine(t)
	var ids []string
	for range 5 {
		ids = append(ids, h.invoke(t, "v/test/ops/echo", `{}`, time.Minute).ID.String())
	}
	pin(t, h, "w/list", `[10, 20, 30, 40]`)
	t.Run("jobs page oldest first", func(t *testing.T) {
		res, err := h.Slice(h.alice, "j", 1, 2)
		if err != nil || res.Count != 5 || len(res.Values) != 2 || res.Type != "Map" {
			t.Fatalf("%+v %v", res, err)
		}
		var e struct{ Key string }
		json.Unmarshal(res.Values[0], &e)
		if e.Key != ids[1] {
			t.Fatalf("first key %s, want %s", e.Key, ids[1])
		}
	})
	t.Run("a vector pages its elements", func(t *testing.T) {
		res, _ := h.Slice(h.alice, "w/list", 2, 10)
		if res.Count != 4 || len(res.Values) != 2 || string(res.Values[0]) != "30" {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("a map pages entries in key order", func(t *testing.T) {
		res, _ := h.Slice(h.alice, "v/ops", 0, 0)
		if res.Count != 2 || !strings.HasPrefix(string(res.Values[0]), `{"key":"grid"`) || !strings.HasPrefix(string(res.Values[1]), `{"key":"ucan"`) {
			t.Fatalf("%+v", res)
		}
	})
	t.Run("bad paging is refused", func(t *testing.T) {
		_, err := h.Slice(h.alice, "j", -1, 10)
		wantCode(t, err, venue.EINVALID)
		_, err = h.Slice(h.alice, "j", 0, 1001)
		wantCode(t, err, venue.EINVALID)
	})
	t.Run("absent paths do not exist", func(t *testing.T) {
		res, err := h.Slice(h.alice, "w/none", 0, 10)
		if err != nil || res.Exists || len(res.Values) != 0 {
			t.Fatalf("%+v %v", res, err)
		}
	})
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func TestReadResult_AppendJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    runtime.ReadResult
	}{
		{"absent", runtime.ReadResult{Value: json.RawMessage("null")}},
		{"absent without a value", runtime.ReadResult{}},
		{"present", runtime.ReadResult{Exists: true, Value: json.RawMessage(`{"a":[1,"x\u003c"]}`), ValueBytes: 18}},
		{"truncated", runtime.ReadResult{Exists: true, Value: json.RawMessage("null"), ValueBytes: 11, Type: "Vector", Truncated: true, Size: 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(&tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.r.AppendJSON(nil); string(got) != string(want) {
				t.Errorf("AppendJSON = %s\nencoding/json  %s", got, want)
			}
		})
	}
}

// batchStore records the most record bytes one ListJobs call hands over.
type batchStore struct {
	sqlStore
	mostListed int
}

func (s *batchStore) ListJobs(ctx context.Context, owner string, offset, limit int, withRecords bool) ([]runtime.JobRow, int, error) {
	rows, total, err := s.sqlStore.ListJobs(ctx, owner, offset, limit, withRecords)
	n := 0
	for _, r := range rows {
		n += len(r.Record)
	}
	s.mostListed = max(s.mostListed, n)
	return rows, total, err
}

// A read of j or a whole holds no more than it answers with: records are
// gathered one at a time, and past maxSize only measured, so that a caller
// with many large job records cannot make one read hold gigabytes.
func TestEngine_ReadOfWholeNamespaceIsBounded(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bs := &batchStore{sqlStore: st}
	h := mustEngineOn(t, bs)
	big := `{"blob": "` + strings.Repeat("x", 100_000) + `"}`
	for range 5 {
		h.invoke(t, "v/test/ops/echo", big, time.Minute)
	}
	for i := range 3 {
		h.RegisterAsset(h.alice, []byte(`{"name": "doc`+strconv.Itoa(i)+`", "description": "`+strings.Repeat("d", 50_000)+`"}`))
	}
	for _, ns := range []string{"j", "a"} {
		whole, err := h.Read(h.alice, ns, runtime.MaxReadSize)
		if err != nil || !whole.Exists || whole.Truncated {
			t.Fatalf("%s: %+v %v", ns, whole, err)
		}
		size := whole.ValueBytes
		bs.mostListed = 0
		for _, maxSize := range []int{100, size - 1} {
			res, err := h.Read(h.alice, ns, maxSize)
			if err != nil || !res.Exists || !res.Truncated || res.ValueBytes != size || res.Size != size || res.Type != "Map" {
				t.Fatalf("%s at maxSize %d: %+v %v, want truncated at %d bytes", ns, maxSize, res, err, size)
			}
		}
		if res, err := h.Read(h.alice, ns, size); err != nil || res.Truncated || string(res.Value) != string(whole.Value) {
			t.Fatalf("%s at its own size: %+v %v", ns, res, err)
		}
		if bs.mostListed > 0 {
			t.Fatalf("%s: a read took %d bytes of records from the store in one call", ns, bs.mostListed)
		}
	}
	if res, err := h.Read(h.bob, "j", 0); err != nil || string(res.Value) != "{}" {
		t.Fatalf("bob's j: %+v %v", res, err)
	}
}
