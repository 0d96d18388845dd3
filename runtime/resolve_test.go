package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// echoMeta is operation metadata for the test echo, as an asset or a pin.
const echoMeta = `{"name":"Pinned echo","operation":{"adapter":"test:echo","input":{"type":"object"}}}`

func TestEngine_ResolvesEveryReferenceForm(t *testing.T) {
	h := mustEngine(t)
	id, err := h.RegisterAsset(h.alice, []byte(echoMeta))
	if err != nil {
		t.Fatal(err)
	}
	pin(t, h, "o/my-echo", echoMeta)
	pin(t, h, "o/by-id", `"`+id.String()+`"`)
	did := h.Identity().DID
	for _, tc := range []struct{ name, ref string }{
		{"catalog path", "v/test/ops/echo"},
		{"catalog path with leading slash", "/v/test/ops/echo"},
		{"registered name", "echo"},
		{"asset a/<hash>", "a/" + id.Hex()},
		{"asset 0x<hash>", id.String()},
		{"asset bare hex", id.Hex()},
		{"pin holding metadata", "o/my-echo"},
		{"pin holding an asset id", "o/by-id"},
		{"DID URL of a catalog path", did + "/v/test/ops/echo"},
		{"DID URL of an asset", did + "/a/" + id.Hex()},
		{"the asset's own DID", did + ":a:" + id.Hex()},
		{"the caller's DID URL of a pin", "did:key:alice/o/my-echo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := h.invoke(t, tc.ref, `{"n": 1}`, time.Minute)
			if j.Status != venue.StatusComplete || string(j.Output) != `{"n":1}` || j.Operation != tc.ref {
				t.Fatalf("got %s %s %q", j.Status, j.Output, j.Error)
			}
		})
	}
}

func TestEngine_RejectsUnresolvableReferences(t *testing.T) {
	h := mustEngine(t)
	plain, err := h.RegisterAsset(h.alice, []byte(`{"name":"not an op"}`))
	if err != nil {
		t.Fatal(err)
	}
	pin(t, h, "o/loop-a", `"o/loop-b"`)
	pin(t, h, "o/loop-b", `"o/loop-a"`)
	pin(t, h, "o/to-pin", `"o/loop-a"`)
	pin(t, h, "o/to-nothing", `"v/ops/core/nope"`)
	pin(t, h, "o/to-junk", `"core:read"`)
	pin(t, h, "o/to-no-asset", `"0x`+strings.Repeat("cd", 32)+`"`)
	for _, tc := range []struct{ name, ref, want string }{
		{"pins in a loop", "o/loop-a", "Cannot resolve operation: o/loop-a (it holds the reference o/loop-b, which resolves to no operation " +
			"(it holds the reference o/loop-a, and a pin's reference is followed once: pin an operation"},
		{"a pin of a pin", "o/to-pin", "Cannot resolve operation: o/to-pin (it holds the reference o/loop-a, which resolves to no operation " +
			"(it holds the reference o/loop-b, and a pin's reference is followed once"},
		{"a pin of a missing operation", "o/to-nothing", "Cannot resolve operation: o/to-nothing (it holds the reference v/ops/core/nope, which resolves to no operation)"},
		{"a pin of an unregistered asset", "o/to-no-asset", "Cannot resolve operation: o/to-no-asset (it holds the reference 0x" + strings.Repeat("cd", 32) +
			", which resolves to no operation: no asset with that id is registered on this venue (register the operation's metadata with POST /api/v1/assets"},
		{"a pin of no reference", "o/to-junk", "Cannot resolve operation: o/to-junk (it holds the reference core:read, which resolves to no operation"},
		{"another venue's asset DID", "did:web:elsewhere.example:a:" + plain.Hex(), "Cannot resolve operation"},
		{"display form", "core:read", "Error invoking operation: IllegalArgumentException:Cannot resolve operation: core:read"},
		{"a pin's listed name", "o:to-pin", "Error invoking operation: IllegalArgumentException:Cannot resolve operation: o:to-pin (a pin is invoked by its path, o/to-pin; o:to-pin is the name listings show it by)"},
		{"unknown catalog path", "v/ops/core/nope", "Cannot resolve operation: v/ops/core/nope"},
		{"unknown name", "nope", "Cannot resolve operation: nope"},
		{"unknown asset", "a/" + strings.Repeat("ab", 32), "Cannot resolve operation"},
		{"asset that is no operation", plain.String(), "Asset is not an operation"},
		{"another venue's DID", "did:web:elsewhere.example/v/test/ops/echo", "Cannot resolve operation"},
		{"empty pin", "o/missing", "Cannot resolve operation: o/missing"},
		{"bad path", "v//ops", "Cannot resolve operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: tc.ref})
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			ids, _, _ := h.Jobs(h.alice, 0, -1)
			if len(ids) != 0 {
				t.Fatalf("a rejected invoke left %d job(s)", len(ids))
			}
		})
	}
}

// TestEngine_PinnedMetadataIsHeldToTheRulesOfRegistered: metadata kept
// inline in a pin is refused with what the venue would read for what it
// shows, as at registration.
func TestEngine_PinnedMetadataIsHeldToTheRulesOfRegistered(t *testing.T) {
	h := mustEngine(t)
	pin(t, h, "o/twin", `{"operation":{"adapter":"test:echo","input":{"type":"object"},"Input":{"type":"string"}}}`)
	_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "o/twin", Input: json.RawMessage(`{}`)})
	wantCode(t, err, venue.EINVALID)
	if want := `Metadata members "operation.Input" and "operation.input" differ only in letter case, and the venue would read one for the other: keep one`; err.Error() != want {
		t.Fatalf("invoke: %v", err)
	}
	if _, _, err := h.ResolveAsset(h.alice, "o/twin"); venue.ErrorCode(err) != venue.EINVALID {
		t.Fatalf("as an asset: %v", err)
	}
}

func TestEngine_PinsAreTheCallersOwn(t *testing.T) {
	h := mustEngine(t)
	pin(t, h, "o/my-echo", echoMeta)
	_, err := h.Invoke(h.bob, runtime.InvokeRequest{Operation: "o/my-echo"})
	wantCode(t, err, venue.EINVALID)
}

func TestEngine_InputIsCheckedAgainstTheSchema(t *testing.T) {
	h := mustEngine(t)
	for _, tc := range []struct{ name, input, want string }{
		{"wrong type names the field", `{"ms": "soon"}`, "input.ms: got string, want integer"},
		{"missing field is named", `{}`, "missing property 'ms'"},
		{"out of range", `{"ms": -1}`, "input.ms: minimum"},
		{"not JSON", `{"ms": `, "Input is not valid JSON"},
		{"a member given twice", `{"ms": "soon", "ms": 5}`, `Input gives the member "ms" twice`},
		{"not an object", `[1]`, "got array, want object"},
		{"a member named but for case, beside the member", `{"ms": 5, "MS": 50000}`,
			`Input gives the member "MS", which this operation does not take: member names are case-sensitive; did you mean "ms"?`},
		{"a member named but for case alone", `{"Ms": 5}`, `did you mean "ms"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/delay", Input: json.RawMessage(tc.input)})
			wantCode(t, err, venue.EINVALID)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestEngine_OperationLookup(t *testing.T) {
	h := mustEngine(t)
	for _, name := range []string{"grid:jobStatus", "v/ops/grid/job-status", "/v/ops/grid/job-status"} {
		op, err := h.Operation(h.alice, name)
		if err != nil || op.Path != "v/ops/grid/job-status" {
			t.Fatalf("%s: %v %v", name, op, err)
		}
	}
	_, err := h.Operation(h.alice, "core:nope")
	wantCode(t, err, venue.ENOTFOUND)
	for _, op := range h.Operations() {
		if !strings.HasPrefix(op.Path, "v/ops/") {
			t.Fatalf("the catalog lists %s; test ops must stay out of v/ops", op.Path)
		}
	}
}

// pin stores value at path in alice's lattice.
func pin(t *testing.T, h *harness, path, value string) {
	t.Helper()
	err := h.store.UpdateValues(context.Background(), "did:key:alice", path, func([]runtime.ValueRow) ([]runtime.ValueRow, []string, error) {
		return []runtime.ValueRow{{Path: path, Value: []byte(value)}}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestEngine_ObjectOnlySchemaRejectsOtherValues(t *testing.T) {
	h := mustEngine(t)
	for _, in := range []string{`[1]`, `"s"`, `3`, `true`} {
		_, err := h.Invoke(h.alice, runtime.InvokeRequest{Operation: "v/test/ops/echo", Input: json.RawMessage(in)})
		wantCode(t, err, venue.EINVALID)
		if !strings.Contains(err.Error(), "want object") {
			t.Fatalf("%s: %v", in, err)
		}
	}
}
