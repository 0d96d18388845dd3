package main

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/gridvenue/venue/sql"
)

// redactDSN hides the passwords of a PostgreSQL DSN before it is logged:
// in a URL's user info and query (password=, sslpassword=), and in a
// key=value DSN. It reports false for anything else (a SQLite path).
func redactDSN(s string) (string, bool) {
	switch {
	case strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://"):
		u, err := url.Parse(s)
		if err != nil {
			return "postgres (unparsable URL)", true
		}
		if q := u.Query(); len(q) > 0 {
			for k := range q {
				if strings.Contains(strings.ToLower(k), "password") {
					q.Set(k, "xxxxx")
				}
			}
			u.RawQuery = q.Encode()
		}
		return u.Redacted(), true
	case sql.IsPostgresDSN(s):
		return kvPassword.ReplaceAllString(s, "${1}xxxxx"), true
	}
	return "", false
}

// kvPassword finds the value of a password setting in a key=value DSN,
// quoted ('...', with \' and \\ escapes) or not. A quote left open (a typo,
// which is when the DSN is logged, in the error) hides the rest of the DSN:
// where the password ends cannot be told.
var kvPassword = regexp.MustCompile(`(?i)(\b\w*password\s*=\s*)('(?:[^'\\]|\\.?)*(?:'|$)|[^\s']\S*)`)
