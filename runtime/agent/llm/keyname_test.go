package llm

import "testing"

func TestLooksLikeKey(t *testing.T) {
	for _, c := range []struct {
		name, value string
		key         bool
	}{
		{"default name", "OPENAI_API_KEY", false},
		{"a name with s/", "s/ANTHROPIC_API_KEY", false},
		{"a short name starting sk-", "sk-prod", false},
		{"an OpenAI project key", "sk-proj-AbCdEf0123456789xyzXYZ", true},
		{"an Anthropic key", "sk-ant-api03-abcdefghijklmnop0123", true},
		{"a Google key", "AIzaSyA1b2C3d4E5f6G7h8I9j0", true},
		{"a long generated key", "Zx81kQm2PLwe93HsAtY7cVb4NdRf6GjUo0Ei5Kl9w", true},
		{"a long name with underscores", "THE_KEY_OF_OUR_PRODUCTION_OPENAI_ACCOUNT_2026", false},
		{"a long lower-case name", "openai-production-key-for-the-research-team", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := looksLikeKey(c.value); got != c.key {
				t.Fatalf("looksLikeKey(%q) = %v, want %v", c.value, got, c.key)
			}
		})
	}
}
