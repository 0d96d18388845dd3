package main

import (
	"net/url"
	"strings"
)

// redactDSN hides the password of a postgres:// URL before it is logged.
func redactDSN(s string) (string, bool) {
	if !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil {
		return "postgres (unparsable URL)", true
	}
	return u.Redacted(), true
}
