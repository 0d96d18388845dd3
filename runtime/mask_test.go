package runtime

import (
	"encoding/json"
	"fmt"
	"html"
	"math/rand"
	"net/url"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// TestMasker_EveryForm checks that a secret is hidden in every form it may
// take on its way out: as it is, escaped for any part of a URL, and written
// into JSON (once, or twice as a JSON body quoted in a JSON output).
func TestMasker_EveryForm(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"a plain token", "zq7-plain_Token.0123"},
		{"URL and JSON specials", `zq7 a/b?c&d=e+f#g<h>"i\j:k@l;m,n`},
		{"non-ASCII", "zq7k1é€ x"},
		{"control characters", "zq7\tline\nbreak"},
		{"base64", "zq7AbC/dEf+GhI=jKlMnOp"},
		{"beyond the BMP", "zq7-p\u00e4ss-\U0001F600-key"},
		{"JavaScript's unescaped marks", "zq7!'()*~x"},
		{"HTML specials", "zq7Tr0ub4dor&3'x<y>\"z"},
		{"beyond ASCII, read back as Latin-1 by a server", "zq7Grüße-Schlüssel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &masker{}
			m.add(tc.value)
			v := tc.value
			forms := []string{v, url.PathEscape(v), url.QueryEscape(v), strings.ReplaceAll(url.QueryEscape(v), "+", "%20"),
				url.User(v).String(), (&url.URL{Path: "/" + v}).String()}
			// Other clients and servers: Python's quote() keeps '/', JavaScript's
			// encodeURIComponent keeps !'()*, some write hex in lower case.
			strict := strings.ReplaceAll(url.QueryEscape(v), "+", "%20")
			python := strings.ReplaceAll(strict, "%2F", "/")
			js := strings.NewReplacer("%21", "!", "%27", "'", "%28", "(", "%29", ")", "%2A", "*").Replace(strict)
			// A server reading header bytes as ISO-8859-1 (Node, WSGI, servlets).
			var mojibake []rune
			for _, c := range []byte(v) {
				mojibake = append(mojibake, rune(c))
			}
			// Python's repr of the header's bytes, and of that Latin-1 text
			// (U+0080 to U+00A0 and U+00AD as \xNN).
			var reprBytes, reprText strings.Builder
			for _, c := range []byte(v) {
				if c >= 0x20 && c < 0x7f && c != '\\' {
					reprBytes.WriteByte(c)
				} else {
					fmt.Fprintf(&reprBytes, `\x%02x`, c)
				}
				if c >= 0x20 && c < 0x7f && c != '\\' || c > 0xa0 && c != 0xad {
					reprText.WriteRune(rune(c))
				} else {
					fmt.Fprintf(&reprText, `\x%02x`, c)
				}
			}
			if strings.ContainsFunc(v, func(r rune) bool { return r >= 0x80 }) {
				forms = append(forms, reprBytes.String(), reprText.String())
			}
			forms = append(forms, string(mojibake), python, js, lowerHexEscaped(strict), lowerHexEscaped(python),
				strings.ReplaceAll(url.QueryEscape(v), "~", "%7E"), url.QueryEscape(url.QueryEscape(v)),
				html.EscapeString(v), strings.NewReplacer("'", "&#x27;", `"`, "&quot;").Replace(html.EscapeString(v)))
			for _, f := range forms {
				quoted, _ := json.Marshal(f)
				twice, _ := json.Marshal(string(quoted))
				// PHP writes '/' as '\/'; Python and PHP write what is beyond
				// ASCII as \u escapes in lower-case hex, Jackson in upper.
				php := strings.ReplaceAll(string(quoted), "/", `\/`)
				ascii := pythonJSON(f)
				// .NET's System.Text.Json escapes +, ', <, >, & (upper-case hex),
				// Gson =, ', <, >, & (lower case).
				dotnet := strings.NewReplacer("+", `\u002B`, "'", `\u0027`, "<", `\u003C`, ">", `\u003E`, "&", `\u0026`).Replace(strings.ToUpper(ascii))
				if strings.ToUpper(ascii) != ascii {
					dotnet = "" // upper-casing changed the value itself, not only its escapes
				}
				gson := strings.NewReplacer("=", `\u003d`, "'", `\u0027`, "<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(string(quoted))
				for _, text := range []string{f, string(quoted), string(twice), php, mustMarshal(php), ascii, mustMarshal(ascii), strings.ToUpper(ascii), dotnet, gson} {
					if text == "" {
						continue
					}
					if got := m.text("<" + text + ">"); strings.Contains(got, "zq7") {
						t.Errorf("text(%q) = %q", text, got)
					}
				}
				j := &venue.Job{Output: json.RawMessage(`{"a":` + string(quoted) + `,"b":` + string(twice) + `}`), Error: "was " + f}
				m.apply(j)
				if strings.Contains(string(j.Output), "zq7") || strings.Contains(j.Error, "zq7") || !json.Valid(j.Output) {
					t.Errorf("apply to a record holding %q: output %s, error %q", f, j.Output, j.Error)
				}
			}
		})
	}
}

// pythonJSON writes s as Python's json.dumps does: quoted, with every
// character beyond ASCII a \u escape in lower-case hex.
func pythonJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u == '"' || u == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(u))
		case u == '\t':
			b.WriteString(`\t`)
		case u == '\n':
			b.WriteString(`\n`)
		case u < 0x20 || u >= 0x7f:
			fmt.Fprintf(&b, `\u%04x`, u)
		default:
			b.WriteByte(byte(u))
		}
	}
	b.WriteByte('"')
	return b.String()
}

func mustMarshal(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMasker_ShortValues checks that values too short to mask safely are
// not taken: masking them would blank innocent text.
func TestMasker_ShortValues(t *testing.T) {
	m := &masker{}
	for _, v := range []string{"", "a", "abc"} {
		m.add(v)
	}
	if got := m.text("abc a"); got != "abc a" {
		t.Errorf("text = %q", got)
	}
}

// TestMaskFields checks that a secret-marked field is hidden at any depth
// however its name is spelled in the JSON text, and that inputs without
// one come back as they were.
func TestMaskFields(t *testing.T) {
	fields := []string{"secret", "token"}
	for _, tc := range []struct{ name, in, want string }{
		{"top level", `{"secret":"v1","a":1}`, `{"a":1,"secret":"HIDDEN"}`},
		{"nested in an array", `[{"b":{"token":"v2"}}]`, `[{"b":{"token":"HIDDEN"}}]`},
		{"name spelled with an escape", `{"secr\u0065t":"SUPERSECRET"}`, `{"secret":"HIDDEN"}`},
		{"escaped solidus in another key", `{"a\/b":1,"t\u006fken":"x"}`, `{"a/b":1,"token":"HIDDEN"}`},
		{"name in other letter case", `{"value":"decoy","SECRET":"REAL","Token":"t"}`, `{"SECRET":"HIDDEN","Token":"HIDDEN","value":"decoy"}`},
		{"no such field", `{"a":"secret"}`, `{"a":"secret"}`},
		{"numbers stay as written", `{"secret":"v","n":12345678901234567890,"f":1.50}`, `{"f":1.50,"n":12345678901234567890,"secret":"HIDDEN"}`},
		{"a letter beyond ASCII that folds to one in the name", "{\"to\u212aen\":\"t\",\"\u017fecret\":\"s\"}", "{\"to\u212aen\":\"HIDDEN\",\"\u017fecret\":\"HIDDEN\"}"},
		{"the same letters written raw", "{\"to\xe2\x84\xaaen\":\"t\"}", "{\"to\xe2\x84\xaaen\":\"HIDDEN\"}"},
		{"escape but no such field", `{"a":"x\ny"}`, `{"a":"x\ny"}`},
		{"not an object", `"secret"`, `"secret"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(maskFields(json.RawMessage(tc.in), fields)); got != tc.want {
				t.Fatalf("maskFields(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestMasker_JSONStructure checks that masking a record never changes its
// JSON structure: a secret is replaced inside strings only, and a number
// or literal holding one becomes a string.
func TestMasker_JSONStructure(t *testing.T) {
	for _, tc := range []struct{ name, secret, in, want string }{
		{"a secret matching structure", "200,", `{"status":200,"headers":{"a":"b"}}`, `{"status":200,"headers":{"a":"b"}}`},
		{"a secret matching a member's end", `":"b`, `{"a":"b"}`, `{"a":"b"}`},
		{"inside a string", "200,", `{"body":"was 200, ok"}`, `{"body":"was HIDDEN ok"}`},
		{"a member name", "s3cr3t", `{"s3cr3t":1}`, `{"HIDDEN":1}`},
		{"a number", "12345678", `{"n":[1234567890]}`, `{"n":["HIDDEN"]}`},
		{"a literal", "true", `[true, false]`, `["HIDDEN", false]`},
		{"a string spelled with escapes", "s3cr3t", `["\u0073\u0033cr3t and \/"]`, `["HIDDEN and /"]`},
		{"JSON inside a string", `a"b\c`, `{"body":"{\"k\":\"a\\\"b\\\\c\"}"}`, `{"body":"{\"k\":\"HIDDEN\"}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &masker{}
			m.add(tc.secret)
			if got := string(func() json.RawMessage { j := &venue.Job{Output: json.RawMessage(tc.in)}; m.apply(j); return j.Output }()); got != tc.want {
				t.Errorf("json(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzMasker_JSON checks that masking valid JSON gives valid JSON, whatever
// the secret.
func FuzzMasker_JSON(f *testing.F) {
	f.Add("200,", []byte(`{"status":200,"headers":{"location":"/x"}}`))
	f.Add(`":"`, []byte(`{"a":"b","c":"d"}`))
	f.Add(`\"x`, []byte(`["\\\"x"]`))
	f.Add("1e10", []byte(`[1e100, "1e10"]`))
	f.Add("null", []byte(`{"null":null}`))
	f.Add("ab\u2028", []byte("\"ab\u2028\""))
	f.Fuzz(func(t *testing.T, secret string, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		m := &masker{}
		m.add(secret)
		j := &venue.Job{Output: doc}
		m.apply(j)
		if got := j.Output; !json.Valid(got) {
			t.Fatalf("masking %q out of %s gives %s", secret, doc, got)
		}
	})
}

// TestMasker_BigValues checks that the masker's cost is bounded whatever
// values a job names, and that a long value is still masked in its forms.
func TestMasker_BigValues(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	var values []string
	for range 20 {
		values = append(values, bigSecret(r, 64<<10))
	}
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	m := &masker{}
	for _, v := range values {
		m.add(v)
	}
	v := values[7]
	echo := "got " + url.QueryEscape(v) + " and " + mustMarshal(mustMarshal(v)) + " and " + v + "."
	got := m.text(echo)
	goruntime.ReadMemStats(&after)
	if got != `got HIDDEN and "\"HIDDEN\"" and HIDDEN.` {
		t.Errorf("text of an echo = %.100q", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("20 values of 64 KiB took %d MB", n>>20)
	}
}

// TestMasker_Blind checks that a value whose characters' forms outgrow the
// budget blanks every text that may hold it, and only those.
func TestMasker_Blind(t *testing.T) {
	var b strings.Builder
	b.WriteString("zq7key")
	for r := rune(0x4e00); r < 0x4e00+5000; r++ {
		b.WriteRune(r)
	}
	m := &masker{}
	m.add(b.String())
	m.add("zq8-other")
	for _, tc := range []struct{ name, in, want string }{
		{"holding its anchor", "a zq7key b", "HIDDEN"},
		{"holding it", "a " + b.String(), "HIDDEN"},
		{"not holding it", "a zq7 b", "a zq7 b"},
		{"holding another value", "a zq8-other b", "a HIDDEN b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.text(tc.in); got != tc.want {
				t.Errorf("text(%.40q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestMasker_Budget checks that a search running out of budget blanks the
// text rather than leaving a value in it.
func TestMasker_Budget(t *testing.T) {
	m := &masker{}
	m.add("zq7/a/b/c/d")
	budget := 5
	if got := m.hide("x zq7%2Fa%2Fb/c/d", m.values, &budget); got != Hidden {
		t.Errorf("hide = %q", got)
	}
}

// TestUnitForms_Alnum checks what maskValue.anchor counts on: every encoder
// writes a letter or digit as it is.
func TestUnitForms_Alnum(t *testing.T) {
	for c := range byte(utf8.RuneSelf) {
		if isAlnum(c) {
			if forms := encodedForms(string(c)); len(forms) != 1 || forms[0] != string(c) {
				t.Errorf("forms of %q: %q", c, forms)
			}
		}
	}
}

// TestMasker_ManyBlind checks that naming many values beyond the budget
// costs no more than a few: the forms worked out are bounded per job.
func TestMasker_ManyBlind(t *testing.T) {
	m := &masker{}
	for i := range 20 {
		var b strings.Builder
		for r := rune(0x4e00 + i*2000); r < rune(0x4e00+i*2000+3000); r++ {
			b.WriteRune(r)
		}
		m.add(b.String())
	}
	if m.spent > maxSpent+maxUnitBytes {
		t.Errorf("worked out %d bytes of forms", m.spent)
	}
	if !m.values[19].blind {
		t.Errorf("the last value is not blind")
	}
}

// TestMasker_AuditedForms checks forms an audit found shown: each text is
// what a client or server made of the secret.
func TestMasker_AuditedForms(t *testing.T) {
	next := func(v string) string {
		return "next=" + strings.ReplaceAll(url.QueryEscape("/app/"+url.PathEscape(v)+"/getMe"), "+", "%20")
	}
	for _, tc := range []struct{ name, secret, text, want string }{
		{"a path segment in a redirect's next=", "q8Zx+Lm/9TkW2r==", next("q8Zx+Lm/9TkW2r=="), "next=%2Fapp%2FHIDDEN%2FgetMe"},
		{"spaces in a redirect's next=", "my secret value 42", next("my secret value 42"), "next=%2Fapp%2FHIDDEN%2FgetMe"},
		{"Java's URLEncoder", "key*with~tilde!(x)", "q=key*with%7Etilde%21%28x%29&", "q=HIDDEN&"},
		{".NET's UrlEncode", "key*with~tilde!(x)", "q=key*with%7etilde!(x)&", "q=HIDDEN&"},
		{"Python's repr of ASCII with both quotes", `he said "hi" & 'bye' <tag> \ back/slash`,
			`got 'he said "hi" & \'bye\' <tag> \\ back/slash'`, `got 'HIDDEN'`},
		{"Python's repr of a line break", "zq7\nline", `'zq7\nline'`, `'HIDDEN'`},
		{"Go's %q beyond ASCII", "p\u00e4\u00a0ssword", "dial: \"p\u00e4\\u00a0ssword\"", `dial: "HIDDEN"`},
		{"Go's %q of control characters", "zq7\vtab\akey", `dial "zq7\vtab\akey"`, `dial "HIDDEN"`},
		{"Go's %+q", "p\u00e4\u00a0ss\x01word", `dial: "p\u00e4\u00a0ss\x01word"`, `dial: "HIDDEN"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &masker{}
			m.add(tc.secret)
			if got := m.text(tc.text); got != tc.want {
				t.Errorf("text(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// hiddenMark stands for Hidden where a test looks for a secret in a masked text:
// "aaa" before "aaaH" masked is "aaaHIDDEN", which spells the secret but
// does not show it.
const hiddenMark = '\uffff'

// shows reports whether form is in got, a masked text, outside its Hiddens.
func shows(got, form string) bool {
	return strings.Contains(strings.ReplaceAll(got, Hidden, string(hiddenMark)), form)
}

// FuzzMasker_Forms checks that the masker is sound for the encodings it
// documents: however a secret looks, and whatever text surrounds it, none
// of its forms stays readable, raw or inside a JSON string.
func FuzzMasker_Forms(f *testing.F) {
	f.Add("tok-5ecret-value", "before ", " after")
	f.Add("p@ss w0rd/?#&=+", "x", "y")
	f.Add("\u00e4\u00a0\u2028\"'\\", "", "")
	f.Add("aaaa", "aaa", "aaa")
	f.Add("----", "--", "-")
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		if len(secret) < 4 || strings.ContainsRune(secret, hiddenMark) || !utf8.ValidString(secret) || !utf8.ValidString(before) || !utf8.ValidString(after) {
			return
		}
		m := &masker{}
		m.add(secret)
		quoted, _ := json.Marshal(secret)
		for name, form := range map[string]string{
			"raw":         secret,
			"JSON":        string(quoted[1 : len(quoted)-1]),
			"query":       url.QueryEscape(secret),
			"path":        url.PathEscape(secret),
			"HTML":        html.EscapeString(secret),
			"Go quoted":   strconv.Quote(secret),
			"query twice": url.QueryEscape(url.QueryEscape(secret)),
		} {
			got := m.text(before + form + after)
			if shows(got, form) {
				t.Fatalf("%s form %q of %q shows in %q", name, form, secret, got)
			}
			doc, _ := json.Marshal(map[string]string{"k": before + form + after})
			j := &venue.Job{Output: doc}
			m.apply(j)
			var back map[string]string
			if json.Unmarshal(j.Output, &back) != nil || shows(back["k"], form) {
				t.Fatalf("%s form %q of %q shows in %s", name, form, secret, j.Output)
			}
		}
	})
}

// TestMasker_BoundedWork masks what once took minutes (76 s for the first
// case alone): a value of backslashes (whose forms \, \\, \\\\ and \\\\\\\\ may
// be read in ever more ways) in a text of backslashes, and many texts, each
// of which once had a budget of its own. Running out blanks the text. How
// long it takes is measured by BenchmarkMasker_Backslashes, not asserted
// here (under -race it takes ten times as long).
func TestMasker_BoundedWork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret string
		texts  []string
	}{
		{"backslashes", strings.Repeat(`\`, 64<<10), []string{strings.Repeat(`\`, 1<<20)}},
		{"backslashes after an anchor", "Key1" + strings.Repeat(`\`, 4000), []string{"Key1" + strings.Repeat(`\`, 200<<10)}},
		{"many headers", strings.Repeat(`\`, 64<<10), slices.Repeat([]string{strings.Repeat(`\`, 4<<10)}, 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &masker{}
			m.add(tc.secret)
			for _, s := range tc.texts {
				if got := m.text(s); strings.Contains(got, tc.secret) {
					t.Fatalf("the secret shows in %.40q", got)
				}
			}
		})
	}
}

// BenchmarkMasker_Backslashes masks a 1 MB text of backslashes holding a
// value of 64 KiB of them: the budget, not the text, bounds the work.
func BenchmarkMasker_Backslashes(b *testing.B) {
	secret, body := strings.Repeat(`\`, 64<<10), strings.Repeat(`\`, 1<<20)
	for b.Loop() {
		m := &masker{}
		m.add(secret)
		if m.text(body) != Hidden {
			b.Fatal("the text shows")
		}
	}
}

// TestMasker_Trimmed checks that a value with white space around it is
// hidden without it too, as net/http sends and reads a header value.
func TestMasker_Trimmed(t *testing.T) {
	for _, tc := range []struct{ name, secret, text, want string }{
		{"a trailing space", "sk-live-Abc123XYZ789 ", "echo: sk-live-Abc123XYZ789", "echo: HIDDEN"},
		{"a trailing tab", "sk-live-Abc123XYZ789\t", "echo: sk-live-Abc123XYZ789;", "echo: HIDDEN;"},
		{"a leading space", " sk-live-Abc123XYZ789", "echo:sk-live-Abc123XYZ789", "echo:HIDDEN"},
		{"too short trimmed", "abc  ", "abc abc", "abc abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &masker{}
			m.add(tc.secret)
			if got := m.text(tc.text); got != tc.want {
				t.Errorf("text(%q) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestMasker_BlindNoAnchor checks that a blind value without letters or
// digits blanks only the texts that may hold it, so a JSON record keeps
// its member names and numbers: it blanked every text, and an output
// became {"HIDDEN":"HIDDEN",...}.
func TestMasker_BlindNoAnchor(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	var b strings.Builder
	for b.Len() < 60000 {
		b.WriteRune(rune(0x4e00 + r.Intn(5000)))
	}
	v := b.String()
	m := &masker{}
	m.add(v)
	if !m.values[0].blind || m.values[0].anchor != "" {
		t.Fatalf("the value is not blind without an anchor")
	}
	long := strings.Repeat("lorem ipsum ", 2000)
	first := v[:3]
	for _, tc := range []struct{ name, in, want string }{
		{"names, numbers and short strings", `{"a":"b","n":12345,"t":true}`, `{"a":"b","n":12345,"t":true}`},
		{"a long string without its characters", `{"a":"` + long + `"}`, `{"a":"` + long + `"}`},
		{"a short string with its first character", `{"a":"` + first + `"}`, `{"a":"` + first + `"}`},
		{"holding it", `{"a":"x` + v + `","n":1}`, `{"a":"HIDDEN","n":1}`},
		{"holding it escaped", `{"a":` + mustMarshal(url.QueryEscape(v)) + `}`, `{"a":"HIDDEN"}`},
		{"a long string with its first character", `{"a":"` + first + long + `"}`, `{"a":"HIDDEN"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(m.json(json.RawMessage(tc.in))); got != tc.want {
				t.Errorf("json(%.60q) = %.60q, want %.60q", tc.in, got, tc.want)
			}
		})
	}
}
