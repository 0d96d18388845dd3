package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestInputNames_RefuseVariants: a member naming a property but for case
// is refused wherever the schema names properties, and nothing else is.
func TestInputNames_RefuseVariants(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"agentId":{"type":"string"},
		"kind":{"type":"string"},
		"caps":{"type":"array","items":{"type":"object","properties":{"with":{"type":"string"},"can":{"type":"string"}}}},
		"config":{"type":"object","properties":{"model":{"type":"string"}}},
		"data":{}}}`)
	s, err := CompileSchema("v/ops/test/names", schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, input, want string }{
		{"exact names", `{"agentId":"a","caps":[{"with":"w/a","can":"crud/read"}],"config":{"model":"m"}}`, ""},
		{"at the top", `{"agentId":"a","AgentID":"b"}`, `Input gives the member "AgentID", which this operation does not take: member names are case-sensitive; did you mean "agentId"?`},
		{"in an array's objects", `{"caps":[{"with":"w/a"},{"with":"w/a","With":"w/b"}]}`, `Input gives the member "With" in input.caps[1], which`},
		{"in a nested object", `{"config":{"Model":"m"}}`, `"Model" in input.config, which`},
		{"folded as encoding/json folds: the Kelvin sign for k", `{"kind":"a","\u212aind":"b"}`, `did you mean "kind"?`},
		{"the long s for s", `{"cap\u017f":[]}`, `did you mean "caps"?`},
		{"anything goes where the schema names nothing", `{"data":{"a":1,"A":2},"config":{"model":"m","other":{"x":1,"X":2}}}`, ""},
		{"other names", `{"agentId":"a","note":"Caps"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.validate(json.RawMessage(tc.input))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
