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
