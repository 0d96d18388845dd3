package llm

import (
	"strings"

	venue "github.com/gridvenue/venue"
)

// checkKeyName words the refusal of an apiKeySecret that names no secret
// and looks like a provider key rather than the name of the secret holding
// one: a key pasted there would otherwise be repeated in the spec's "API
// key not found ... at /s/<name>" error and in the logs. It is asked only
// once no secret of that name is found, so a secret named like a key still
// works. The message does not repeat the value.
func checkKeyName(name string) error {
	if !looksLikeKey(name) {
		return nil
	}
	return venue.Errorf(venue.EINVALID, "apiKeySecret holds what looks like an API key itself; it names the secret that holds the key: "+
		"store the key with PUT /api/v1/secrets/OPENAI_API_KEY (or another name) and pass that name")
}

// keyPrefixes begin the keys of common providers (OpenAI, Anthropic, xAI,
// Groq, Google).
var keyPrefixes = []string{"sk-", "sk_", "xai-", "gsk_", "AIza"}

// looksLikeKey is true for a long value with a provider's key prefix, or
// for one longer than names are written (40 characters) mixing upper and
// lower case and digits with no '_' or '.', as generated keys do and
// names such as OPENAI_API_KEY_PROD do not.
func looksLikeKey(name string) bool {
	if len(name) >= 20 {
		for _, p := range keyPrefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
	}
	if len(name) < 40 || strings.ContainsAny(name, "_.") {
		return false
	}
	return strings.ContainsAny(name, "0123456789") &&
		strings.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz") &&
		strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}
