package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Violation checks a JSON value against the schema (an agent's answer
// against its responseSchema, say) and describes the first violation,
// rooted at root ("answer.total: got string, want number"); "" when v
// fits. v must be valid JSON.
func (s *compiledSchema) Violation(root string, v json.RawMessage) string {
	if s.schema == nil {
		return ""
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(v))
	if err != nil {
		return fmt.Sprintf("%s: not JSON: %v", root, err)
	}
	var ve *jsonschema.ValidationError
	if err := s.schema.Validate(doc); !errors.As(err, &ve) {
		if err != nil {
			return fmt.Sprintf("%s: %v", root, err)
		}
		return ""
	}
	for _, u := range ve.BasicOutput().Errors {
		if u.Error != nil {
			return fmt.Sprintf("%s%s: %s", root, strings.ReplaceAll(u.InstanceLocation, "/", "."), u.Error.String())
		}
	}
	return ve.Error()
}
