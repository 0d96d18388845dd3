package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// The forms a secret may take on its way out of the venue and back, which
// the masker (mask.go) blanks: URL escapes, JSON escapes of many encoders,
// HTML escapes, and a value beyond ASCII read back as ISO-8859-1.
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
		strings.ReplaceAll(query, "~", "%7E")} // Java's URLEncoder, PHP's urlencode, .NET's UrlEncode
	forms = append(forms, lowerHexEscapes(forms...)...)
	// Each URL form encoded again, as a redirect's next= parameter holds
	// the path or query it was asked for.
	var again []string
	for _, f := range forms {
		q := url.QueryEscape(f)
		again = append(again, q, strings.ReplaceAll(q, "+", "%20"))
	}
	forms = append(append(forms, again...), lowerHexEscapes(again...)...)
	forms = append(forms, html.EscapeString(v), pythonHTML.Replace(v), phpHTML.Replace(v), templateHTML.Replace(v))
	// Go's %q (strconv.Quote, and QuoteToASCII for %+q) of an error
	// quoting the value, and Python's repr, which escapes ' only in a
	// value holding both kinds of quote.
	for _, q := range []string{strconv.Quote(v), strconv.QuoteToASCII(v)} {
		forms = append(forms, q[1:len(q)-1])
	}
	repr := pythonRepr(v)
	forms = append(forms, repr, strings.ReplaceAll(repr, "'", `\'`))
	// The value's UTF-8 bytes read as ISO-8859-1, as Node, WSGI servers and
	// servlet containers read header bytes: an echoed header comes back so
	// ("GrÃ¼Ãe" for "Grüße"). And as Python's repr shows both: the bytes
	// (b'Gr\xc3\xbc...') and that Latin-1 text, whose characters U+0080 to
	// U+00A0 and U+00AD it writes \xNN.
	return append(forms, latin1(v), bytesRepr(v), latin1Repr(v))
}

// unitForms lists the forms of u, one character of a secret (or one byte
// of invalid UTF-8): each of secretForms, written into JSON by each encoder
// (jsonForms), and that JSON written into JSON again. Every encoder writes
// a value character by character, so a value's form is a form of each of
// its characters in a row. A letter or digit is written as it is by all of
// them (a test checks it), which the masker counts on (maskValue.anchor).
func unitForms(u string) []string {
	if len(u) == 1 && isAlnum(u[0]) {
		return []string{u}
	}
	return encodedForms(u)
}

// encodedForms is unitForms worked out: each stage applied to the distinct
// results of the one before.
func encodedForms(u string) []string {
	forms := distinct(secretForms(u))
	var once []string
	for _, f := range forms {
		once = append(once, jsonForms(f)...)
	}
	once = distinct(once)
	for _, f := range once {
		forms = append(forms, f)
		forms = append(forms, jsonEscapes(f)...)
	}
	return distinct(forms)
}

// distinct returns forms without repeats, in their first order.
func distinct(forms []string) []string {
	seen := make(map[string]bool, len(forms))
	return slices.DeleteFunc(forms, func(f string) bool {
		if seen[f] {
			return true
		}
		seen[f] = true
		return false
	})
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

// pythonRepr writes s as Python's repr of a str does between its quotes
// (choosing '): backslash, line breaks and tabs escaped, what it deems
// unprintable as \xNN, \uNNNN or \UNNNNNNNN; ' is left for the caller.
func pythonRepr(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < utf8.RuneSelf && r >= 0x20 && r < 0x7f || r >= utf8.RuneSelf && r != 0xad && unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
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

// lowerHexEscapes lists those of forms holding %XX escapes with their hex
// digits in lower case.
func lowerHexEscapes(forms ...string) []string {
	var out []string
	for _, f := range forms {
		if strings.Contains(f, "%") {
			out = append(out, lowerHexEscaped(f))
		}
	}
	return out
}

// lowerHexEscaped writes the hex digits of f's %XX escapes in lower case.
func lowerHexEscaped(f string) string {
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
