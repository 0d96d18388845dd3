package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// TestEngine_DepthIsBounded: the venue keeps JSON at most 1000 levels deep
// wherever it takes some in (every reader wraps what it reads, and
// encoding/json stops at 10000), and takes 1000 levels.
func TestEngine_DepthIsBounded(t *testing.T) {
	h := mustEngine(t)
	nest := func(n int) json.RawMessage {
		return json.RawMessage(`{"v":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	for _, tc := range []struct {
		name string
		do   func(json.RawMessage) error
		what string
	}{
		{"input", func(v json.RawMessage) error {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: v})
			return err
		}, "Input"},
		{"asset metadata", func(v json.RawMessage) error { _, err := h.RegisterAsset(h.alice, v); return err }, "Asset metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(nest(1000)); err != nil {
				t.Fatalf("1000 levels: %v", err)
			}
			err := tc.do(nest(1001))
			wantCode(t, err, venue.EINVALID)
			if want := tc.what + " nests more than 1000 levels deep, more than the venue keeps"; err.Error() != want {
				t.Fatalf("error %q, want %q", err, want)
			}
		})
	}
}

// TestEngine_LatticeDepthCountsThePath: a lattice value's depth counts from
// its namespace, so that no write, however deep its path or the value
// already there, builds a document a read of the namespace cannot answer;
// a read answers what it holds, through Read and an operation alike.
func TestEngine_LatticeDepthCountsThePath(t *testing.T) {
	h := mustEngine(t)
	arrays := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	maps := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"k":`, n-1) + "{}" + strings.Repeat("}", n-1))
	}
	for _, tc := range []struct {
		name   string
		write  func() error
		refuse bool
	}{
		{"999 levels one below w", func() error { return h.Write(h.alice, "w/a", arrays(999)) }, false},
		{"1000 levels one below w", func() error { return h.Write(h.alice, "w/b", arrays(1000)) }, true},
		{"998 levels two below w", func() error { return h.Write(h.alice, "w/c/d", arrays(998)) }, false},
		{"999 levels two below w", func() error { return h.Write(h.alice, "w/c/e", arrays(999)) }, true},
		{"appended, one level more", func() error { _, err := h.Append(h.alice, "w/f", arrays(999)); return err }, true},
		{"below a deep value", func() error {
			if err := h.Write(h.alice, "w/doc", maps(900)); err != nil {
				return err
			}
			return h.Write(h.alice, "w/doc/"+strings.Repeat("k/", 299)+"x", maps(900))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.write()
			if !tc.refuse {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(err.Error(), "more than the 1000 the venue keeps") {
				t.Fatalf("error %q", err)
			}
		})
	}
	if res, err := h.Read(h.alice, "w", 0); err != nil || !res.Exists {
		t.Fatalf("read w: %v %v", res, err)
	}
}
