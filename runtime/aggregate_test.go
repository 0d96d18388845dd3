package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func TestEngine_Count(t *testing.T) {
	h := mustEngine(t)
	for range 3 {
		h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
	}
	h.invoke(t, "v/test/ops/error", `{}`, time.Minute)
	asset, _ := h.RegisterAsset(h.alice, []byte(`{"name": "doc"}`))
	pin(t, h, "w/people", `{"ada": {"role": "eng", "meta": {"lang": "en"}}, "bob": {"role": "ops"}, "cy": {"role": "eng"}, "di": {"team": 1}, "ed": 7}`)
	pin(t, h, "w/list", `[{"n": 3}, {"n": 3}, {"n": "3"}, {"n": true}, {"n": null}, {"n": {"b": 1, "a": [1, 2]}}, [1], "s"]`)
	pin(t, h, "w/rows/a", `{"k": "x"}`)
	pin(t, h, "w/rows/b", `{"k": "x"}`)
	pin(t, h, "w/empty", `{}`)
	pin(t, h, "w/scalar", `"text"`)
	for _, tc := range []struct {
		name, path, groupBy string
		want                string // the result as JSON, or its start if it ends with ':'
	}{
		{"a map counts its keys", "w/people", "", `{"exists":true,"count":5}`},
		{"a vector counts its elements", "w/list", "", `{"exists":true,"count":8}`},
		{"an empty map", "w/empty", "", `{"exists":true,"count":0}`},
		{"a map assembled from rows", "w/rows", "", `{"exists":true,"count":2}`},
		{"a scalar does not exist as a collection", "w/scalar", "", `{"exists":false}`},
		{"an absent path", "w/nothing/here", "", `{"exists":false}`},
		{"j counts the caller's jobs", "j", "", `{"exists":true,"count":4}`},
		{"a counts the assets", "a", "", `{"exists":true,"count":1}`},
		{"an asset's metadata is a map", "a/" + asset.Hex(), "", `{"exists":true,"count":1}`},
		{"the catalog", "v/test/ops/echo/operation", "", `{"exists":true,"count":`},
		{"groupBy puts entries without the field and non-objects under null", "w/people", "role",
			`{"exists":true,"count":5,"groups":{"eng":{"count":2},"null":{"count":2},"ops":{"count":1}}}`},
		{"groupBy a slash path of fields", "w/people", "meta/lang",
			`{"exists":true,"count":5,"groups":{"en":{"count":1},"null":{"count":4}}}`},
		{"groupBy keys non-strings by their JSON text", "w/list", "n",
			`{"exists":true,"count":8,"groups":{"3":{"count":3},"null":{"count":3},"true":{"count":1},"{\"b\":1,\"a\":[1,2]}":{"count":1}}}`},
		{"groupBy does not index vectors", "w/list", "n/a/0",
			`{"exists":true,"count":8,"groups":{"null":{"count":8}}}`},
		{"groupBy on rows", "w/rows", "k", `{"exists":true,"count":2,"groups":{"x":{"count":2}}}`},
		{"groupBy on an empty map still has groups", "w/empty", "k", `{"exists":true,"count":0,"groups":{}}`},
		{"groupBy on an absent path", "w/nothing", "k", `{"exists":false}`},
		{"groupBy on a scalar", "w/scalar", "k", `{"exists":false}`},
		{"groupBy j by status", "j", "status",
			`{"exists":true,"count":4,"groups":{"COMPLETE":{"count":3},"FAILED":{"count":1}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Count(h.alice, tc.path, tc.groupBy)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res)
			prefix := strings.HasSuffix(tc.want, ":")
			if prefix && !strings.HasPrefix(string(got), tc.want) || !prefix && string(got) != tc.want {
				t.Fatalf("Count(%s, %q) = %s, want %s", tc.path, tc.groupBy, got, tc.want)
			}
		})
	}
}

func TestEngine_CountRefuses(t *testing.T) {
	h := mustEngine(t)
	var many []string
	for i := range runtime.MaxGroups + 1 {
		many = append(many, fmt.Sprintf(`{"id": %d}`, i))
	}
	pin(t, h, "w/many", "["+strings.Join(many, ",")+"]")
	for _, tc := range []struct {
		name, path, groupBy string
		code, msg           string
	}{
		{"a malformed path", "w//x", "", venue.EINVALID, "empty segment"},
		{"an unknown namespace", "q/x", "", venue.EINVALID, "unknown namespace"},
		{"a groupBy with an empty field", "w/many", "a//b", venue.EINVALID, "empty field name"},
		{"a groupBy with a leading slash", "w/many", "/a", venue.EINVALID, "empty field name"},
		{"a groupBy of '..'", "w/many", "..", venue.EINVALID, "a '.' or '..' field name"},
		{"a groupBy with '.' inside", "w/many", "meta/./kind", venue.EINVALID, "a '.' or '..' field name"},
		{"a groupBy too long", "w/many", strings.Repeat("f", venue.MaxPathLen+1), venue.EINVALID, "too long"},
		{"too many groups", "w/many", "id", venue.EINVALID, "more than 1000 groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Count(h.alice, tc.path, tc.groupBy)
			wantCode(t, err, tc.code)
			if !strings.Contains(venue.ErrorMessage(err), tc.msg) {
				t.Fatalf("message %q lacks %q", venue.ErrorMessage(err), tc.msg)
			}
		})
	}
}

// TestEngine_CountManyAssets: past what one read gathers, a's count comes
// from the store, and grouping it is refused rather than unbounded.
func TestEngine_CountManyAssets(t *testing.T) {
	h := mustEngine(t)
	const n = 1001
	for i := range n {
		if _, err := h.RegisterAsset(h.alice, []byte(fmt.Sprintf(`{"name":"asset %d"}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	res, err := h.Count(h.alice, "a", "")
	if err != nil || !res.Exists || res.Count == nil || *res.Count != n {
		t.Fatalf("count a: %+v, %v", res, err)
	}
	_, err = h.Count(h.alice, "a", "name")
	wantCode(t, err, venue.EINVALID)
	if msg := venue.ErrorMessage(err); !strings.Contains(msg, "more than 1000 entries") {
		t.Fatalf("message %q", msg)
	}
}

func TestEngine_CountIsPerCaller(t *testing.T) {
	h := mustEngine(t)
	pin(t, h, "w/private", `{"a": 1}`)
	h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
	for _, tc := range []struct{ name, path, want string }{
		{"another's workspace is absent", "w/private", `{"exists":false}`},
		{"another's jobs are not counted", "j", `{"exists":true,"count":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Count(h.bob, tc.path, "")
			if got, _ := json.Marshal(res); err != nil || string(got) != tc.want {
				t.Fatalf("bob's count of %s = %s, %v, want %s", tc.path, got, err, tc.want)
			}
		})
	}
}

// TestEngine_CountJobsByStatus: j grouped by status is counted by the
// store, which answers as grouping the records does (the same records
// pinned as a map and grouped are the reference) and has no cap, so a
// caller with more jobs than one read gathers gets an answer too.
func TestEngine_CountJobsByStatus(t *testing.T) {
	h := mustEngine(t)
	for range 2 {
		h.invoke(t, "v/test/ops/echo", `{}`, time.Minute)
	}
	h.invoke(t, "v/test/ops/error", `{}`, time.Minute)
	h.invoke(t, "v/test/ops/ask", `{"question": "Which colour?"}`, time.Minute) // waits in INPUT_REQUIRED
	for _, tc := range []struct {
		name   string
		caller context.Context
		want   string
	}{
		{"a caller with jobs in several statuses", h.alice,
			`{"exists":true,"count":4,"groups":{"COMPLETE":{"count":2},"FAILED":{"count":1},"INPUT_REQUIRED":{"count":1}}}`},
		{"a caller with no jobs", h.bob, `{"exists":true,"count":0,"groups":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := h.Read(tc.caller, "j", 0)
			if err != nil || jobs.Truncated {
				t.Fatalf("read j: %+v, %v", jobs, err)
			}
			pin(t, h, "w/jobs-copy", string(jobs.Value))
			byRecords, err := h.Count(h.alice, "w/jobs-copy", "status")
			if err != nil {
				t.Fatal(err)
			}
			byStore, err := h.Count(tc.caller, "j", "status")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(byRecords)
			if got, _ := json.Marshal(byStore); string(got) != string(want) || string(got) != tc.want {
				t.Fatalf("j by status = %s; its records grouped = %s; want %s", got, want, tc.want)
			}
		})
	}
	t.Run("more jobs than a read gathers", func(t *testing.T) {
		writeDoneJobs(t, h.store, "did:key:bob", 1500)
		res, err := h.Count(h.bob, "j", "status")
		if got, _ := json.Marshal(res); err != nil || string(got) != `{"exists":true,"count":1500,"groups":{"COMPLETE":{"count":1500}}}` {
			t.Fatalf("j by status = %s, %v", got, err)
		}
		_, err = h.Count(h.bob, "j", "operation") // any other field still reads the records
		if msg := venue.ErrorMessage(err); !strings.Contains(msg, "more than 1000 entries") {
			t.Fatalf("j by operation: %v", err)
		}
	})
}
