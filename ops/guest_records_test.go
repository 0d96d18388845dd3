package ops

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gridvenue/venue/runtime"
)

// TestGuest_SecretFieldsInRecords checks that the fields the built-in
// operations mark secret are hidden in the job's input however the
// operation is reached: through the catalog, or through a pin or an asset
// whose metadata copies the adapter but leaves secretFields out.
func TestGuest_SecretFieldsInRecords(t *testing.T) {
	s := mustStack(t)
	bare := func(adapter string) string {
		return `{"name":"copy","operation":{"adapter":"` + adapter + `","input":{"type":"object"}}}`
	}
	s.seed(t, map[string]string{"o/setter": bare("secret:set"), "o/getter": bare("http:get")}, nil)
	asset, err := s.RegisterAsset(s.alice, []byte(bare("secret:set")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, op, in, value string
		stored              string // the secret the job stores, if any
	}{
		{"secret:set from the catalog", "v/ops/secret/set", `{"name":"CAT","value":"catalog-value"}`, "catalog-value", "CAT"},
		{"secret:set through a pin", "o/setter", `{"name":"PIN","value":"pinned-value"}`, "pinned-value", "PIN"},
		{"secret:set through an asset", "a/" + asset.Hex(), `{"name":"ASSET","value":"asset-value"}`, "asset-value", "ASSET"},
		{"a raw bearer token", "v/ops/http/get", `{"url":"{web}/x","bearerSecret":"ghp_rawToken0123"}`, "ghp_rawToken0123", ""},
		{"a raw secret header", "v/ops/http/post", `{"url":"{web}/x","secretHeaders":{"X-Key":"raw-header-0123"}}`, "raw-header-0123", ""},
		{"a raw bearer token through a pin", "o/getter", `{"url":"{web}/x","bearerSecret":"ghp_rawToken4567"}`, "ghp_rawToken4567", ""},
		{"a literal Authorization header", "v/ops/http/get", `{"url":"{web}/x","headers":{"Authorization":"Bearer ghp_literal0123"}}`, "ghp_literal0123", ""},
		{"a literal cookie, in another case, through a pin", "o/getter", `{"url":"{web}/x","headers":{"cookie":"session=literal-0123"}}`, "literal-0123", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := s.run(t, tc.op, s.web.fill(tc.in))
			b, _ := json.Marshal(j)
			if strings.Contains(string(b), tc.value) || !strings.Contains(string(j.Input), runtime.Hidden) {
				t.Errorf("the record shows the value: input %s, error %q", j.Input, j.Error)
			}
			if tc.stored != "" {
				checkJob(t, j, "", `{"name":"`+tc.stored+`","stored":true}`, false, false)
				s.checkSecrets(t, map[string]string{tc.stored: tc.value})
			}
		})
	}
}

// TestGuest_CaseVariantsThroughCopies: a pin or an asset copying a
// built-in adapter with a loose schema of its own (or none) is held to the
// adapter's member names, as the adapter's own decoding would take a case
// variant for the real member: {"url": A, "URL": B} would record A and
// fetch B.
func TestGuest_CaseVariantsThroughCopies(t *testing.T) {
	s := mustStack(t)
	loose := func(adapter, schema string) string {
		return `{"name":"copy","operation":{"adapter":"` + adapter + `"` + schema + `}}`
	}
	s.seed(t, map[string]string{"o/getter": loose("http:get", `,"input":{"type":"object"}`)}, nil)
	asset, err := s.RegisterAsset(s.alice, []byte(loose("core:write", "")))
	if err != nil {
		t.Fatal(err)
	}
	s.mustRefuse(t, "o/getter", s.web.fill(`{"url":"{web}/good","URL":"{web}/other"}`), `Input gives the member "URL", which this operation does not take`)
	s.mustRefuse(t, "a/"+asset.Hex(), `{"path":"w/copies/a","PATH":"w/copies/b","value":1}`, `did you mean "path"?`)
	s.checkLattice(t, map[string]string{"w/copies/a": "", "w/copies/b": ""})
}
