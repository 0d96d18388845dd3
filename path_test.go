package venue_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

func TestParsePath(t *testing.T) {
	long := "w/" + strings.Repeat("x", venue.MaxPathLen-2)
	for _, tc := range []struct {
		name     string
		in       string
		wantSegs []string
	}{
		{"venue root", "v", []string{"v"}},
		{"catalog", "v/ops", []string{"v", "ops"}},
		{"catalog operation", "v/ops/core/read", []string{"v", "ops", "core", "read"}},
		{"leading slash is dropped", "/v/ops", []string{"v", "ops"}},
		{"workspace", "w/notes/today", []string{"w", "notes", "today"}},
		{"pin", "o/my-pin", []string{"o", "my-pin"}},
		{"jobs", "j/0x" + hex32, []string{"j", "0x" + hex32}},
		{"agent state", "g/agent-1/state/inbox", []string{"g", "agent-1", "state", "inbox"}},
		{"secret", "s/OPENAI_API_KEY", []string{"s", "OPENAI_API_KEY"}},
		{"asset", "a/" + hex64, []string{"a", hex64}},
		{"colon inside a segment", "w/core:read", []string{"w", "core:read"}},
		{"space inside a segment", "w/my notes", []string{"w", "my notes"}},
		{"dots inside a segment", "w/.hidden/a..b/...", []string{"w", ".hidden", "a..b", "..."}},
		{"non-ASCII segment", "w/café/日本", []string{"w", "café", "日本"}},
		{"exactly the length limit", long, []string{"w", long[2:]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := venue.ParsePath(tc.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tc.in, err)
			}
			if !slices.Equal(p.Segments, tc.wantSegs) {
				t.Errorf("Segments = %q, want %q", p.Segments, tc.wantSegs)
			}
			if p.Namespace() != tc.wantSegs[0] {
				t.Errorf("Namespace() = %q, want %q", p.Namespace(), tc.wantSegs[0])
			}
			if want := strings.TrimPrefix(tc.in, "/"); p.String() != want {
				t.Errorf("String() = %q, want %q", p.String(), want)
			}
		})
	}
}

func TestParsePath_Rejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		// every fragment must appear in the message: it says what is wrong
		// and what to do instead
		wantMsg []string
	}{
		{"empty", "", []string{"empty", "give a path such as w/notes"}},
		{"slash alone", "/", []string{"empty segment", "remove the doubled or trailing '/'"}},
		{"two leading slashes", "//v/ops", []string{"empty segment", "remove the doubled"}},
		{"doubled slash", "a//b", []string{`"a//b"`, "empty segment", "remove the doubled or trailing '/'"}},
		{"doubled slash deeper", "w/notes//today", []string{"empty segment"}},
		{"trailing slash", "v/ops/", []string{"empty segment", "trailing '/'"}},
		{"dot", ".", []string{`"."`, "may not step up or sideways"}},
		{"dot-dot", "..", []string{`".."`, "may not step up"}},
		{"dot segment", "w/./x", []string{`"."`, "may not step up or sideways"}},
		{"dot-dot segment", "w/notes/../../v/ops", []string{`".."`, "may not step up"}},
		{"trailing dot-dot", "w/..", []string{`".."`}},
		{"NUL", "w/a\x00b", []string{"control character"}},
		{"newline", "w/a\nb", []string{"control character"}},
		{"tab", "w/a\tb", []string{"control character"}},
		{"the replacement character", "w/s/\ufffd", []string{"U+FFFD"}},
		{"unit separator", "w/\x1f", []string{"control character"}},
		{"DEL", "w/\x7f", []string{"control character"}},
		{"escape in namespace", "\x1b[31m/x", []string{"control character"}},
		{"unknown namespace", "x/y", []string{`unknown namespace "x"`, "use one of v, w, o, j, g, s, a"}},
		{"upper-case namespace", "V/ops", []string{`unknown namespace "V"`, "use one of v, w, o, j, g, s, a"}},
		{"word namespace", "ops/core/read", []string{`unknown namespace "ops"`}},
		{"display form", "core:read", []string{`unknown namespace "core:read"`}},
		{"URL", "https://example.com/x", []string{"empty segment"}},
		{"scheme-like namespace", "http:/x", []string{`unknown namespace "http:"`}},
		{"one byte over the limit", "w/" + strings.Repeat("x", venue.MaxPathLen-1), []string{"too long", "1025 bytes", "limit is 1024"}},
		{"far over the limit", strings.Repeat("w/", 100000), []string{"too long", "limit is 1024"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := venue.ParsePath(tc.in)
			if err == nil {
				t.Fatalf("ParsePath(%q) = %q, want an error", tc.in, p.Segments)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			for _, frag := range tc.wantMsg {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("message %q lacks %q", err, frag)
				}
			}
			if len(err.Error()) > 400 {
				t.Errorf("message is %d bytes: the input is not clipped", len(err.Error()))
			}
		})
	}
}

func TestPath_Child(t *testing.T) {
	base, err := venue.ParsePath("w/notes")
	if err != nil {
		t.Fatal(err)
	}
	a := base.Child("a")
	b := base.Child("b")
	if a.String() != "w/notes/a" || b.String() != "w/notes/b" {
		t.Errorf("Child = %q, %q; want w/notes/a, w/notes/b", a, b)
	}
	if base.String() != "w/notes" {
		t.Errorf("Child changed its receiver to %q", base)
	}
}

func TestKnownNamespace(t *testing.T) {
	for _, tc := range []struct {
		ns   string
		want bool
	}{
		{"v", true}, {"w", true}, {"o", true}, {"j", true}, {"g", true}, {"s", true}, {"a", true},
		{"", false}, {"x", false}, {"V", false}, {"ops", false}, {"vv", false},
	} {
		t.Run("ns "+tc.ns, func(t *testing.T) {
			if got := venue.KnownNamespace(tc.ns); got != tc.want {
				t.Errorf("KnownNamespace(%q) = %v, want %v", tc.ns, got, tc.want)
			}
		})
	}
}

func FuzzLatticePath(f *testing.F) {
	for _, s := range []string{
		"v/ops/core/read", "/v/ops", "w/notes/today", "o/pin", "a/" + hex64, "g/agent/x",
		"", "/", "a//b", "v/ops/", ".", "..", "w/../v", "w/a\x00b", "x/y", "w/é",
		"//", "/w", "w/\xff", strings.Repeat("w/", 600),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := venue.ParsePath(s)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParsePath(%q): code %q, want %q", s, venue.ErrorCode(err), venue.EINVALID)
			}
			return
		}
		if len(s) > venue.MaxPathLen {
			t.Fatalf("ParsePath accepted a %d-byte path", len(s))
		}
		if len(p.Segments) == 0 {
			t.Fatalf("ParsePath(%q) accepted a path with no segments", s)
		}
		if !venue.KnownNamespace(p.Namespace()) {
			t.Fatalf("ParsePath(%q): unknown namespace %q accepted", s, p.Namespace())
		}
		for _, seg := range p.Segments {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("ParsePath(%q): segment %q accepted", s, seg)
			}
			if strings.Contains(seg, "/") {
				t.Fatalf("ParsePath(%q): segment %q holds a slash", s, seg)
			}
			for _, r := range seg {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("ParsePath(%q): control character %U accepted", s, r)
				}
			}
		}
		q, err := venue.ParsePath(p.String())
		if err != nil {
			t.Fatalf("ParsePath(%q).String() = %q does not re-parse: %v", s, p.String(), err)
		}
		if !slices.Equal(p.Segments, q.Segments) {
			t.Fatalf("re-parse of %q gave %q, want %q", p.String(), q.Segments, p.Segments)
		}
		if utf8.ValidString(s) && !utf8.ValidString(p.String()) {
			t.Fatalf("valid UTF-8 input %q became invalid", s)
		}
	})
}

func TestHasDotSegment(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		want       bool
	}{
		{"plain", "v/ops/core/read", false},
		{"dots inside a name", "w/a.b/..c/c..", false},
		{"a dot segment", "w/./a", true},
		{"a dot-dot segment", "v/ops/../w", true},
		{"leading", "../w", true},
		{"trailing", "w/a/.", true},
		{"alone", "..", true},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := venue.HasDotSegment(tc.path); got != tc.want {
				t.Fatalf("HasDotSegment(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}
