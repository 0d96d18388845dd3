package llm

import (
	"encoding/json"
	"strings"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// schemaCheck is a compiled responseSchema.
type schemaCheck interface {
	Violation(root string, v json.RawMessage) string
}

// compileSchema compiles the response schema in force, if any.
// Returns EINVALID naming the schema's fault.
func (pr *prepared) compileSchema() error {
	if len(pr.schema) == 0 || string(pr.schema) == "null" {
		return nil
	}
	s, err := runtime.CompileSchema("responseSchema", pr.schema)
	if err != nil {
		return venue.Errorf(venue.EINVALID, "responseSchema: %s", venue.ErrorMessage(err))
	}
	pr.check = s
	return nil
}

// parseAnswer reads the model's final text as the result: JSON (in a
// ```json fence or not) when a response schema asks for it, checked
// against the schema. It returns the result and the violation, if any.
func (pr *prepared) parseAnswer(answer string) (json.RawMessage, string) {
	if pr.check == nil {
		b, _ := json.Marshal(answer)
		return b, ""
	}
	s := strings.TrimSpace(answer)
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "```json"), "```"), "```"))
	if !json.Valid([]byte(s)) {
		b, _ := json.Marshal(answer)
		return b, "answer: not JSON: " + clip(answer)
	}
	return json.RawMessage(s), pr.check.Violation("answer", json.RawMessage(s))
}

// violated records a response-schema violation. The first gets the model
// one more try, with the violation (it returns the message to tell it);
// the second ends the turn with an error naming it.
func (pr *prepared) violated(violation string) (retry string, err error) {
	pr.violations++
	if pr.violations < 2 {
		return "Your answer does not match the required response schema: " + violation +
			". Answer again with only a JSON value matching this JSON Schema: " + string(pr.schema), nil
	}
	return "", venue.Errorf(venue.EINVALID, "The model's answer broke responseSchema again after being told: %s", violation)
}
