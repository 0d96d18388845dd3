package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func TestEngine_WriteReadDelete(t *testing.T) {
	h := mustEngine(t)
	read := func(path string) string {
		t.Helper()
		res, err := h.Read(h.alice, path, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Exists {
			return "absent"
		}
		return string(res.Value)
	}
	steps := []struct {
		name, do, path, value string
		want                  map[string]string // path → value after the step
	}{
		{"write creates the maps on the way", "write", "w/a/b/c", `1`, map[string]string{"w/a": `{"b":{"c":1}}`, "w/a/b/c": `1`}},
		{"a sibling joins them", "write", "w/a/b/d", `"x"`, map[string]string{"w/a/b": `{"c":1,"d":"x"}`}},
		{"writing an ancestor replaces what was below", "write", "w/a/b", `{"e": true}`, map[string]string{"w/a/b": `{"e":true}`, "w/a/b/c": "absent"}},
		{"writing inside a stored value edits it", "write", "w/a/b/e", `false`, map[string]string{"w/a/b": `{"e":false}`}},
		{"", "write", "w/a/b/e", `null`, map[string]string{"w/a/b": `{"e":null}`}},
		{"a null in the way becomes a map", "write", "w/a/b/e/f", `2`, map[string]string{"w/a/b/e": `{"f":2}`}},
		{"a vector element is replaced by index", "write", "w/list", `[1, 2, 3]`, map[string]string{"w/list/1": `2`}},
		{"", "write", "w/list/1", `20`, map[string]string{"w/list": `[1,20,3]`}},
		{"delete inside a value", "delete", "w/a/b/e/f", ``, map[string]string{"w/a/b/e": `{}`}},
		{"delete a vector element", "delete", "w/list/0", ``, map[string]string{"w/list": `[20,3]`}},
		{"delete a subtree of rows", "delete", "w/a", ``, map[string]string{"w/a": "absent", "w/a/b": "absent"}},
		{"append creates a vector", "append", "w/log", `"one"`, map[string]string{"w/log": `["one"]`}},
		{"append adds to the end", "append", "w/log", `"two"`, map[string]string{"w/log": `["one","two"]`}},
		{"copy from the catalog", "copy", "w/copied", `v/ops/grid/job-status/name`, map[string]string{"w/copied": `"Job Status"`}},
		{"siblings with a common prefix stay apart", "write", "w/ab", `3`, map[string]string{"w/ab": `3`, "w/a": "absent"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var err error
			switch s.do {
			case "write":
				err = h.Write(h.alice, s.path, json.RawMessage(s.value))
			case "delete":
				_, err = h.Delete(h.alice, s.path)
			case "append":
				_, err = h.Append(h.alice, s.path, json.RawMessage(s.value))
			case "copy":
				err = h.Copy(h.alice, s.value, s.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			for p, want := range s.want {
				if got := read(p); got != want && !jsonEqual(got, want) {
					t.Fatalf("%s = %s, want %s", p, got, want)
				}
			}
		})
	}
	if res, _ := h.Read(h.bob, "w", 0); res.Exists {
		t.Fatalf("bob sees alice's workspace: %s", res.Value)
	}
}

func TestEngine_WriteRefusals(t *testing.T) {
	h := mustEngine(t, func(c *runtime.Config) { c.MaxValueSize = 1000 })
	for _, tc := range []struct {
		name, path, value, code, want string
	}{
		{"the venue namespace", "v/ops/x", `1`, venue.EFORBIDDEN, "read-only"},
		{"job records", "j/x", `1`, venue.EFORBIDDEN, "venue only"},
		{"secrets", "s/KEY", `"v"`, venue.EFORBIDDEN, "secret/set"},
		{"assets", "a/x", `1`, venue.EFORBIDDEN, "immutable"},
		{"a whole namespace", "w", `{}`, venue.EINVALID, "whole w namespace"},
		{"a bad path", "w/../x", `1`, venue.EINVALID, "step up"},
		{"not JSON", "w/x", `{`, venue.EINVALID, "not valid JSON"},
		{"a member given twice", "w/x", `[{"a":1,"a":2}]`, venue.EINVALID, `Value gives the member "a" twice`},
		{"a number past a double", "w/x", `{"n":[1e999]}`, venue.EINVALID, "Value has the number 1e999, past the largest a double holds"},
		{"half a surrogate pair", "w/x", `["\udfff"]`, venue.EINVALID, "Value has half of a UTF-16 surrogate pair"},
		{"bytes that are not UTF-8", "w/x", "[\"a\xffb\"]", venue.EINVALID, "Value has bytes that are not UTF-8 text"},
		{"no value", "w/x", ``, venue.EINVALID, "value is required"},
		{"too large", "w/x", `"` + strings.Repeat("x", 1000) + `"`, venue.ETOOLARGE, "exceeds"},
		{"an index past the end", "w/v/5", `1`, venue.EINVALID, "not in the vector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.Write(h.alice, "w/v", json.RawMessage(`[0]`))
			err := h.Write(h.alice, tc.path, json.RawMessage(tc.value))
			wantCode(t, err, tc.code)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v lacks %q", err, tc.want)
			}
		})
	}
	t.Run("below a string, in a row or inside a value", func(t *testing.T) {
		h.Write(h.alice, "w/s", json.RawMessage(`"keep"`))
		h.Write(h.alice, "w/in", json.RawMessage(`{"list":[1,"two"]}`))
		for path, want := range map[string]string{
			"w/s/t":         "Cannot write below w/s: it holds a string, not a map or vector; write w/s itself to replace it",
			"w/in/list/1/q": "Cannot write below w/in/list/1: it holds a string",
			"w/in/list/0/q": "Cannot write below w/in/list/0: it holds a number",
		} {
			err := h.Write(h.alice, path, json.RawMessage(`1`))
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("writing %s: %v lacks %q", path, err, want)
			}
		}
		if res, _ := h.Read(h.alice, "w/s", 0); string(res.Value) != `"keep"` {
			t.Fatalf("w/s = %s after the refusal", res.Value)
		}
		if res, _ := h.Read(h.alice, "w/in", 0); string(res.Value) != `{"list":[1,"two"]}` {
			t.Fatalf("w/in = %s after the refusals", res.Value)
		}
	})
	t.Run("append to a map", func(t *testing.T) {
		h.Write(h.alice, "w/m", json.RawMessage(`{"a":1}`))
		_, err := h.Append(h.alice, "w/m", json.RawMessage(`1`))
		wantCode(t, err, venue.EINVALID)
	})
	half := json.RawMessage(`"` + strings.Repeat("x", 600) + `"`)
	t.Run("a value stored whole grows past the limit", func(t *testing.T) {
		h.Write(h.alice, "w/whole", json.RawMessage(`{"a":1}`))
		if err := h.Write(h.alice, "w/whole/b", half); err != nil {
			t.Fatal(err)
		}
		err := h.Write(h.alice, "w/whole/c", half)
		wantCode(t, err, venue.ETOOLARGE)
		if res, _ := h.Read(h.alice, "w/whole", 0); res.ValueBytes > 1000 {
			t.Fatalf("the value grew to %d bytes", res.ValueBytes)
		}
	})
	t.Run("a vector grows past the limit", func(t *testing.T) {
		if _, err := h.Append(h.alice, "w/vec", half); err != nil {
			t.Fatal(err)
		}
		_, err := h.Append(h.alice, "w/vec", half)
		wantCode(t, err, venue.ETOOLARGE)
	})
}

func TestEngine_List(t *testing.T) {
	h := mustEngine(t)
	h.Write(h.alice, "w/m", json.RawMessage(`{"b":1,"a":2,"c":3}`))
	res, err := h.List(h.alice, "w/m", 1, 1)
	if err != nil || res.Count != 3 || len(res.Keys) != 1 || res.Keys[0] != "b" || res.Type != "Map" {
		t.Fatalf("%+v %v", res, err)
	}
	res, _ = h.List(h.alice, "v/ops", 0, 0)
	if res.Count != 2 || res.Keys[0] != "grid" || res.Keys[1] != "ucan" {
		t.Fatalf("%+v", res)
	}
}

// TestEngine_DeleteTakesItsOwnAbility checks that deleting another owner's
// value takes a grant of crud/delete (or crud), as writing takes
// crud/write: a grant to write does not let its holder delete.
func TestEngine_DeleteTakesItsOwnAbility(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct {
		name, can string
		code      string // of Delete; "" when it deletes
	}{
		{"write only", venue.AbilityWrite, venue.EFORBIDDEN},
		{"delete", venue.AbilityDelete, ""},
		{"all of crud", "crud", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := h.Write(h.alice, "w/shared/doc", json.RawMessage(`1`)); err != nil {
				t.Fatal(err)
			}
			bob := venue.WithCaller(h.bob, venue.Caller{DID: "did:key:bob"}.WithGrants(venue.Capability{With: "did:key:alice/w/shared", Can: tc.can}))
			_, err := h.Delete(bob, "did:key:alice/w/shared/doc")
			if venue.ErrorCode(err) != tc.code {
				t.Fatalf("delete with %s: %v, want %q", tc.can, err, tc.code)
			}
		})
	}
}
