package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// Hidden replaces a secret wherever a job record would show it.
const Hidden = "HIDDEN"

// masker remembers the plaintext secrets a job resolved and blanks them out
// of its records and of everything the host hands back to its guest. A
// value is known in every form it takes on the way out of the venue: as it
// is, escaped for each part of a URL (see escapeURL) and escaped in JSON,
// so that a server echoing a request line or a header returns nothing the
// masker misses. Only values of at least minMasked bytes are masked: a
// one-letter "secret" would blank every occurrence of that letter, which is
// why shorter values cannot be stored or resolved (tooShort).
type masker struct {
	mu     sync.Mutex
	inText []string // the forms to blank in plain text, longest first
	inJSON []string // the forms inside JSON strings (escaped once or twice), longest first
}

const minMasked = 4

func (m *masker) add(v string) {
	if len(v) < minMasked {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range secretForms(v) {
		m.inText = insertForm(m.inText, f)
		for _, once := range jsonForms(f) {
			for _, twice := range append(jsonEscapes(once), once) {
				m.inText = insertForm(m.inText, twice)
				m.inJSON = insertForm(m.inJSON, twice)
			}
		}
	}
}

// jsonEscapes returns f as Go writes it between the quotes of a JSON
// string, with and without HTML escaping.
func jsonEscapes(f string) []string { return []string{jsonEscaped(f, true), jsonEscaped(f, false)} }

// jsonForms returns f as any common encoder writes it between the quotes
// of a JSON string: Go's escapes, and each of them with '/' written '\/'
// (PHP's json_encode) and with every character beyond ASCII written as a
// \uXXXX escape, in lower-case hex (Python's json.dumps, PHP) or upper
// (Jackson).
func jsonForms(f string) []string {
	var out []string
	for _, e := range jsonEscapes(f) {
		for _, s := range []string{e, strings.ReplaceAll(e, "/", `\/`)} {
			out = append(out, s, asciiEscaped(s, "0123456789abcdef"), asciiEscaped(s, "0123456789ABCDEF"))
		}
	}
	// .NET's System.Text.Json escapes these and all beyond ASCII in upper
	// case; Gson these, in lower case.
	return append(out, jsonEncoded(f, "\"&'+<>`", true, "0123456789ABCDEF"), jsonEncoded(f, "<>&='", false, "0123456789abcdef"))
}

// jsonEncoded writes f between the quotes of a JSON string as an encoder
// that \u-escapes the characters in escape (and, if ascii, every one
// beyond ASCII) in the hex digits given does.
func jsonEncoded(f, escape string, ascii bool, digits string) string {
	var b strings.Builder
	u := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(digits[r>>shift&0xf])
		}
	}
	for _, r := range f {
		switch {
		case strings.ContainsRune(escape, r):
			u(r)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			u(r)
		case r >= utf8.RuneSelf && ascii:
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				u(r1)
				u(r2)
			} else {
				u(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// asciiEscaped writes every rune of s beyond ASCII as a \uXXXX escape
// (two, a surrogate pair, beyond the Basic Multilingual Plane), in the hex
// digits given.
func asciiEscaped(s, digits string) string {
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		units := []rune{r}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			units = []rune{r1, r2}
		}
		for _, u := range units {
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(digits[u>>shift&0xf])
			}
		}
	}
	return b.String()
}

// secretForms lists the texts v may become in a URL: itself, its escapes
// for a path segment, a query and user info (escapeURL's), the whole-path
// escaping Go falls back to, the strict %20 escaping of most other clients,
// that escaping keeping '/' (Python's quote) or !'()* (JavaScript's
// encodeURIComponent), and each escaped form in lower-case hex as well.
// Each may then be written into JSON (a server echoing a request line),
// and that JSON into a string in a record.
func secretForms(v string) []string {
	query := url.QueryEscape(v)
	strict := strings.ReplaceAll(query, "+", "%20")
	forms := []string{v, url.PathEscape(v), query, strict, url.User(v).String(), (&url.URL{Path: v}).EscapedPath(),
		strings.ReplaceAll(strict, "%2F", "/"), componentEscaped.Replace(strict),
		strings.ReplaceAll(query, "~", "%7E"), // Java's URLEncoder, PHP's urlencode, .NET's UrlEncode
		url.QueryEscape(query),                // encoded twice, as a redirect's next= parameter is
		html.EscapeString(v), pythonHTML.Replace(v), phpHTML.Replace(v), templateHTML.Replace(v)}
	for _, f := range forms {
		if strings.Contains(f, "%") {
			forms = append(forms, lowerHexEscapes(f))
		}
	}
	if !isASCII(v) {
		// The value's UTF-8 bytes read as ISO-8859-1, as Node, WSGI servers
		// and servlet containers read header bytes: an echoed header comes
		// back so ("GrÃ¼Ãe" for "Grüße").
		// And as Python's repr shows both: the bytes (b'Gr\xc3\xbc...') and
		// that Latin-1 text, whose characters U+0080 to U+00A0 and U+00AD it
		// writes \xNN.
		forms = append(forms, latin1(v), bytesRepr(v), latin1Repr(v))
	}
	return forms
}

// bytesRepr writes the bytes of s as Python's repr of bytes does between
// its quotes: printable ASCII as is, the rest \xNN.
func bytesRepr(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}

// latin1Repr is latin1(s) as Python's repr of a str writes it: the
// characters it deems unprintable as \xNN.
func latin1Repr(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c < 0x20 || c >= 0x7f && c <= 0xa0 || c == 0xad:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteRune(rune(c))
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// latin1 reads the bytes of s as ISO-8859-1.
func latin1(s string) string {
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

// HTML escapes of a value shown in a page: Python's html.escape, PHP's
// htmlspecialchars and Go's html/template (which also escapes '+'), beside
// Go's html.EscapeString.
var (
	pythonHTML   = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")
	phpHTML      = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#039;")
	templateHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
)

// componentEscaped undoes the escapes JavaScript's encodeURIComponent
// leaves out.
var componentEscaped = strings.NewReplacer("%21", "!", "%27", "'", "%28", "(", "%29", ")", "%2A", "*")

// lowerHexEscapes writes the hex digits of f's %XX escapes in lower case.
func lowerHexEscapes(f string) string {
	b := []byte(f)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// jsonEscaped returns v as it appears between the quotes of a JSON string.
func jsonEscaped(v string, escapeHTML bool) string {
	if escapeHTML {
		b := venue.AppendString(nil, v)
		return string(b[1 : len(b)-1])
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return string(b[1 : len(b)-1])
}

// insertForm returns forms with f added, kept longest first so that a form
// is never cut up by masking a shorter one inside it first. The result is
// a new slice: text and apply read the old one without the lock.
func insertForm(forms []string, f string) []string {
	if slices.Contains(forms, f) {
		return forms
	}
	i, _ := slices.BinarySearchFunc(forms, f, func(a, b string) int { return len(b) - len(a) })
	return slices.Insert(slices.Clip(forms), i, f)
}

// text masks the values in s.
func (m *masker) text(s string) string {
	m.mu.Lock()
	forms := m.inText
	m.mu.Unlock()
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, Hidden)
	}
	return s
}

// apply masks j's output, error and message in place.
func (m *masker) apply(j *venue.Job) {
	j.Error = m.text(j.Error)
	m.mu.Lock()
	forms := m.inJSON
	m.mu.Unlock()
	for _, f := range forms {
		j.Output = maskJSON(j.Output, f)
		j.Message = maskJSON(j.Message, f)
	}
}

// maskJSON replaces esc, a secret's form as escaped inside a JSON string,
// in the JSON text b. A secret can only appear in b inside a string, so
// swapping its escaped form for HIDDEN keeps the text valid.
func maskJSON(b json.RawMessage, esc string) json.RawMessage {
	if len(b) == 0 || !bytes.Contains(b, []byte(esc)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(esc), []byte(Hidden))
}

// maskFields returns input with every object member whose key is listed in
// fields replaced by "HIDDEN", at any depth. Inputs that are not JSON
// objects or arrays, or that name no such field, come back unchanged.
func maskFields(input json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 || len(input) == 0 || (input[0] != '{' && input[0] != '[') || !mentionsAny(input, fields) {
		return input
	}
	// Numbers stay as written: a float64 would round integers past 2^53.
	var v any
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return input
	}
	if !hideKeys(v, fields) {
		return input
	}
	out, _ := json.Marshal(v)
	return out
}

// mentionsAny is a cheap pre-check: a field can only be present if its
// name appears in the text as a quoted string, in any letter case (Go's
// JSON decoding, which operations use, matches names so). Names that need
// escaping in JSON, and any text holding an escape (which may spell a
// name, as "secr\u0065t" does) or a byte beyond ASCII (a letter that
// folds to an ASCII one in other bytes: the Kelvin sign is k, "ſ" is s),
// are treated as present.
func mentionsAny(b []byte, fields []string) bool {
	if bytes.IndexByte(b, '\\') >= 0 || bytes.ContainsFunc(b, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return true
	}
	for _, f := range fields {
		if containsFold(b, venue.AppendString(nil, f)) || strings.ContainsAny(f, "\\\"<>&") {
			return true
		}
	}
	return false
}

// containsFold reports whether sub, a quoted name, is within b without
// regard to case. Only a quote in b can begin it.
func containsFold(b, sub []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], sub[0])
		if j < 0 || i+j+len(sub) > len(b) {
			return false
		}
		if i += j; bytes.EqualFold(b[i:i+len(sub)], sub) {
			return true
		}
	}
}

func hideKeys(v any, fields []string) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			if slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, k) }) {
				v[k], changed = Hidden, true
			} else if hideKeys(val, fields) {
				changed = true
			}
		}
	case []any:
		for _, e := range v {
			if hideKeys(e, fields) {
				changed = true
			}
		}
	}
	return changed
}

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

// placeholderLen is the length of the {s/NAME} placeholder s begins with,
// or 0.
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
