package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHideUserInfo checks that literal user info in a URL anywhere in an
// input is hidden from the record, placeholders are kept, and the rest of
// the text stays byte for byte.
func TestHideUserInfo(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"user and password", `{"url":"https://alice:pw1@example.com/x","n":12345678901234567890}`,
			`{"url":"https://HIDDEN@example.com/x","n":12345678901234567890}`},
		{"a token as the user name", `{"u":"https://ghp_tok@github.com"}`, `{"u":"https://HIDDEN@github.com"}`},
		{"placeholders only", `{"url":"https://{s/U}:{s/P}@h/"}`, `{"url":"https://{s/U}:{s/P}@h/"}`},
		{"a literal name before a placeholder password", `{"url":"https://bob:{s/P}@h/"}`, `{"url":"https://bob:{s/P}@h/"}`},
		{"a literal password after a placeholder name", `{"url":"https://{s/U}:pw@h/"}`, `{"url":"https://HIDDEN@h/"}`},
		{"a user name and an empty password", `{"url":"https://tok:@h/"}`, `{"url":"https://HIDDEN@h/"}`},
		{"an at sign in the path only", `{"url":"https://h/a@b","s":"x@y"}`, `{"url":"https://h/a@b","s":"x@y"}`},
		{"two URLs in text", `["see http://a:b@h1 and ftp://c@h2/x ok"]`, `["see http://HIDDEN@h1 and ftp://HIDDEN@h2/x ok"]`},
		{"an at sign written as an escape", `{"url":"https://al:pw\u0040h/","k\"":"v"}`, `{"url":"https://HIDDEN@h/","k\"":"v"}`},
		{"in a member name", `{"http://a:b@h":1}`, `{"http://HIDDEN@h":1}`},
		{"no URL", `{"a":"b@c"}`, `{"a":"b@c"}`},
		{"a placeholder after the host", `{"url":"https://h/{s/P}@x"}`, `{"url":"https://h/{s/P}@x"}`},
		{"slashes written \\/ (PHP's json_encode)", `{"dsn":"http:\/\/alice:pw@db\/x"}`, `{"dsn":"http://HIDDEN@db/x"}`},
		{"slashes written \\u002f", `{"dsn":"http:\u002f\u002falice:pw@db"}`, `{"dsn":"http://HIDDEN@db"}`},
		{"no scheme", `{"u":"//alice:pw@host/"}`, `{"u":"//HIDDEN@host/"}`},
		{"a # in the password, as libpq takes it", `{"dsn":"postgresql://app:S3cr#tPw@db:5432/prod"}`, `{"dsn":"postgresql://HIDDEN@db:5432/prod"}`},
		{"a ? in the password", `{"dsn":"postgresql://app:secr?etpw@db/app"}`, `{"dsn":"postgresql://HIDDEN@db/app"}`},
		{"a query after a path keeps its @", `{"u":"https://h/p?next=a@b"}`, `{"u":"https://h/p?next=a@b"}`},
		{"a generated password holding /", `{"dsn":"postgresql://app:kX9/q+Zr2w==@db/prod"}`, `{"dsn":"postgresql://HIDDEN@db/prod"}`},
		{"a password holding a quote", `{"dsn":"postgresql://app:pa\"ss@db/x"}`, `{"dsn":"postgresql://HIDDEN@db/x"}`},
		{"a path's @ after a plain host", `{"u":"https://medium.com/@user/post"}`, `{"u":"https://medium.com/@user/post"}`},
		{"a path's @ after a host and port", `{"u":"http://localhost:3000/@user"}`, `{"u":"http://localhost:3000/@user"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(hideUserInfo(json.RawMessage(tc.in))); got != tc.want {
				t.Fatalf("hideUserInfo(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestHideUserInfo_ManyURLs: one string may hold very many URLs (an input
// is up to 16 MiB); hiding them is one pass, not a copy of the string per
// URL, which took minutes for this one.
func TestHideUserInfo_ManyURLs(t *testing.T) {
	in := `{"t":"` + strings.Repeat("a://u:p@h ", 200_000) + `"}`
	want := `{"t":"` + strings.Repeat("a://HIDDEN@h ", 200_000) + `"}`
	if got := string(hideUserInfo(json.RawMessage(in))); got != want {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}

// FuzzHideUserInfo holds hideUserInfo to valid JSON in, valid JSON out,
// and to leaving nothing more to hide in what it returns.
func FuzzHideUserInfo(f *testing.F) {
	for _, s := range []string{`{"url":"https://a:b@h/"}`, `["x://@@@"]`, `"\u0040://a@"`, `{"a":"://"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out := hideUserInfo(json.RawMessage(in))
		if !json.Valid(out) {
			t.Fatalf("hideUserInfo(%s) = %s, not JSON", in, out)
		}
		if string(hideUserInfo(out)) != string(out) {
			t.Fatalf("hideUserInfo is not idempotent on %s: %s", in, out)
		}
	})
}

// TestPlaceholders finds {s/NAME} as the placeholder grammar has it: a
// name of letters, digits, '_', '.' and '-', starting with a letter or digit.
func TestPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"https://h/{s/KEY}?q={s/a.b-c_1}", []string{"{s/KEY}", "{s/a.b-c_1}"}},
		{"{s/}{s/_x}{s/x y}{s/ok}", []string{"{s/ok}"}},
		{"{s/{s/IN}}", []string{"{s/IN}"}},
		{"no placeholder {s/", nil},
	} {
		var got []string
		for _, m := range placeholders(tc.in) {
			got = append(got, tc.in[m[0]:m[1]])
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("placeholders(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
