package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// hideUserInfo returns input with the user info of every URL written in its
// strings replaced by HIDDEN, unless it is made of {s/NAME} placeholders
// only: for the record, since an operation (http's, a user's) may refuse
// such a URL, or send it, but a literal password must not stay readable in
// the job. The rest of the text is left byte for byte.
func hideUserInfo(input json.RawMessage) json.RawMessage {
	if !bytes.Contains(input, []byte("//")) && !bytes.Contains(input, []byte(`\`)) {
		return input // no URL, nor an escape that could spell one
	}
	var out []byte
	last := 0
	for i := 0; i < len(input); i++ {
		if input[i] != '"' {
			continue
		}
		end := stringEnd(input, i)
		if hidden, ok := hideStringUserInfo(input[i:end]); ok {
			out = append(append(out, input[last:i]...), hidden...)
			last = end
		}
		i = end - 1
	}
	if out == nil {
		return input
	}
	return append(out, input[last:]...)
}

// hidesUserInfo reports whether hideUserInfo hid a URL's user info in
// input, a record's: the record then lacks what the job was given.
func hidesUserInfo(input json.RawMessage) bool {
	return bytes.Contains(input, []byte("//"+Hidden+"@"))
}

// stringEnd returns the index just past the JSON string that begins with
// the quote at b[start] (or len(b) if it does not end).
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// hideStringUserInfo hides the user info of the URLs in lit, a JSON string
// with its quotes, and reports whether there was any. A string written
// with escapes (which may spell the '@') is decoded, and written again
// only if it changed.
func hideStringUserInfo(lit []byte) ([]byte, bool) {
	if bytes.IndexByte(lit, '\\') < 0 {
		if !bytes.Contains(lit, []byte("//")) {
			return nil, false
		}
		if bytes.IndexByte(lit, '@') < 0 || len(lit) < 2 || lit[len(lit)-1] != '"' {
			return nil, false
		}
		s, changed := hideURLUserInfo(string(lit[1 : len(lit)-1]))
		return []byte(`"` + s + `"`), changed
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return nil, false
	}
	s, changed := hideURLUserInfo(s)
	return venue.AppendString(nil, s), changed
}

// hideURLUserInfo replaces the user info of each "scheme://user:pass@host"
// in s, or "//user:pass@host" without a scheme, wherever it stands in the
// text. One pass: a string may hold millions of URLs.
func hideURLUserInfo(s string) (string, bool) {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(s[from:], "//")
		if i < 0 {
			break
		}
		start := from + i + 2
		authority := s[start : start+userInfoReach(s[start:])]
		if at := strings.LastIndexByte(authority, '@'); at > 0 && literalUserInfo(authority[:at]) {
			b.WriteString(s[last:start])
			b.WriteString(Hidden)
			last = start + at
		}
		from = start + len(authority)
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// userInfoReach is how far after "//" user info may reach: the
// authority (to a '/', '?', '#' or space) or, when that begins like
// "user:password" (a colon, then more than a port's digits) and holds no
// '@', on to the next '@', as libpq reads postgresql://app:kX9/q+Zr=@db,
// whose generated password holds a '/' (or '#', or '?'). A path holding
// an '@' after a plain host (https://example.com/@user) keeps it.
func userInfoReach(s string) int {
	run := s
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		run = s[:i]
	}
	n := authorityLen(run)
	head := run[:n]
	if strings.Contains(head, "@") {
		return n
	}
	c := strings.IndexByte(head, ':')
	if c < 0 || strings.Trim(head[c+1:], "0123456789") == "" {
		return n
	}
	if at := strings.IndexByte(run[n:], '@'); at >= 0 {
		// On through the host after it, so that the user info ends at the
		// authority's last '@' as in any other URL.
		at += n + 1
		return at + authorityLen(run[at:])
	}
	return n
}

// authorityLen is the length of the URL authority s begins with, in a URL
// or in text around one. A {s/NAME} placeholder is part of it, although
// its '/' would end it.
func authorityLen(s string) int {
	for i := 0; i < len(s); {
		if n := placeholderLen(s[i:]); n > 0 {
			i += n
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == '/' || c == '?' || c == '#' || unicode.IsSpace(c) {
			return i
		}
		i += size
	}
	return len(s)
}

// placeholders returns where each {s/NAME} placeholder stands in s, from
// left to right, as start and end indices.
func placeholders(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{s/")
		if j < 0 {
			break
		}
		i += j
		if n := placeholderLen(s[i:]); n > 0 {
			out = append(out, [2]int{i, i + n})
			i += n
		} else {
			i++
		}
	}
	return out
}

// placeholderLen is the length of the {s/NAME} placeholder s begins with,
// or 0. This is the one place the placeholder's grammar is written.
func placeholderLen(s string) int {
	name, ok := strings.CutPrefix(s, "{s/")
	if !ok {
		return 0
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '}':
			if i == 0 {
				return 0
			}
			return len("{s/") + i + 1
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9',
			i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return 0
		}
	}
	return 0
}

// literalUserInfo reports whether a URL's user info holds a literal
// credential: a password not made of {s/NAME} placeholders or, with no
// password, such a user name (a token given as the user, as in
// https://TOKEN@host). A literal user name before a placeholder password
// is a name, not a credential.
func literalUserInfo(info string) bool {
	secret := info
	if user, pass, ok := strings.Cut(info, ":"); ok && pass != "" {
		secret = pass
	} else if ok {
		secret = user
	}
	for i := 0; i < len(secret); {
		n := placeholderLen(secret[i:])
		if n == 0 {
			return true
		}
		i += n
	}
	return false
}
