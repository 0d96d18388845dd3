package jsonops

import (
	"encoding/json"
	"fmt"

	"github.com/gridvenue/venue/ops/internal/input"
	"github.com/gridvenue/venue/ops/internal/jsonv"
	"github.com/gridvenue/venue/wasm/guest"
)

func init() {
	guest.Register("json:merge", merge)
	guest.Register("json:select", selectOp)
	guest.Register("json:assoc", assoc)
	guest.Register("json:cond", cond)
}

// output is every json operation's output.
type output struct {
	Result any `json:"result"`
}

// decode reads the input of op into fields, each raw member parsed with
// its order kept; absent members stay nil (and a present null is nil too,
// which is what every operation here wants).
func decode(op string, in json.RawMessage, fields map[string]*any) error {
	raw := map[string]json.RawMessage{}
	if err := input.Decode(op, in, &raw); err != nil {
		return err
	}
	for name, dst := range fields {
		if r, ok := raw[name]; ok {
			v, err := jsonv.Parse(r)
			if err != nil {
				return fmt.Errorf("%s: '%s': %v", op, name, err)
			}
			*dst = v
		}
	}
	return nil
}
