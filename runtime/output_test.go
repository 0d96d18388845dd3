package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

// TestCheckOutput fails output a reader could not take as the record's:
// not UTF-8, not JSON, nested past what JSON readers allow, and, from
// uploaded code, a member given twice, a number past a double or half a
// surrogate pair.
func TestCheckOutput(t *testing.T) {
	e := &Engine{cfg: Config{MaxOutputSize: 1 << 20}, checkers: map[string]ModuleChecker{"wasm": noCheck{}}}
	uploaded := &venue.Operation{Name: "wasm:upper", Adapter: "wasm"} // as "wasm", its family
	builtin := &venue.Operation{Name: "core:read", Adapter: "core"}
	deep := strings.Repeat("[", 1009) + strings.Repeat("]", 1009)
	for _, tc := range []struct {
		name string
		op   *venue.Operation
		out  string
		want string // "": passes
	}{
		{"compact JSON", uploaded, `{"a":"é"}`, ""},
		{"bytes that are not UTF-8", builtin, "{\"a\":\"\xff\xfe\"}", "Operation returned output that is not UTF-8 text, as JSON must be"},
		{"not JSON", builtin, `{"a":`, "Operation returned output that is not JSON"},
		{"nested too deep", builtin, deep, "Operation returned output nested more than 1008 levels deep, more than the venue keeps"},
		{"nested as deep as kept", builtin, deep[1 : len(deep)-1], ""},
		{"a member twice, from uploaded code", uploaded, `{"a":1,"a":2}`, `Operation returned output that gives the member "a" twice in one object`},
		{"a member twice, from the venue's own code", builtin, `{"a":1,"a":2}`, ""},
		{"a number past a double, from uploaded code", uploaded, `{"n":1e999}`, "Operation returned output with the number 1e999, past the largest a double holds (about 1.8e308), which many JSON readers refuse"},
		{"half a surrogate pair, from uploaded code", uploaded, `["\ud800"]`, "Operation returned output with half of a UTF-16 surrogate pair escaped without the other half, which JSON readers decode differently"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.checkOutput(json.RawMessage(tc.out))
			if err == nil {
				err = e.checkDeclaredOutput(tc.op, out)
			}
			if got := venue.ErrorMessage(err); err != nil && got != tc.want || err == nil && tc.want != "" {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

type noCheck struct{}

func (noCheck) CheckModule(context.Context, []byte) error { return nil }
