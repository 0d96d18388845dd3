package agent

import (
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestParseSkill(t *testing.T) {
	for _, tc := range []struct{ name, text, wantName, wantErr string }{
		{"plain", "---\nname: pdf-tools\ndescription: Work with PDFs\n---\n# PDF\n", "pdf-tools", ""},
		{"quoted and nested", "---\nname: \"notes\"\nmetadata:\n  name: ignored\ndescription: 'Take notes'\n---\nbody", "notes", ""},
		{"no frontmatter", "# Just markdown", "", "must start with a frontmatter block"},
		{"unclosed", "---\nname: x\ndescription: y\n", "", "not closed"},
		{"no name", "---\ndescription: y\n---\n", "", "has no 'name'"},
		{"no description", "---\nname: x\n---\n", "", "has no 'description'"},
		{"path in name", "---\nname: ../../v/ops\ndescription: y\n---\n", "", "is not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSkill(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || venue.ErrorCode(err) != venue.EINVALID {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || s.Name != tc.wantName || s.Text != tc.text {
				t.Fatalf("%+v %v", s, err)
			}
		})
	}
}

// FuzzParseSkill: any text either parses to a name that is a safe path
// segment or fails with EINVALID; it never panics.
func FuzzParseSkill(f *testing.F) {
	f.Add("---\nname: a\ndescription: b\n---\n")
	f.Add("---\r\nname: a\r\ndescription: b\r\n---")
	f.Add("\ufeff---\nname:\ndescription:\n---")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSkill(text)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("error code %s", venue.ErrorCode(err))
			}
			return
		}
		if _, err := venue.ParsePath("w/skills/" + s.Name); err != nil || strings.Contains(s.Name, "/") {
			t.Fatalf("name %q is not one path segment", s.Name)
		}
	})
}

func TestNormSession(t *testing.T) {
	for in, want := range map[string]string{"0xABCDEF0123": "abcdef0123", "abcdef01": "abcdef01", "xyz": "", "": "", "abc": ""} {
		got, err := normSession(in)
		if (err != nil) != (want == "") || got != want {
			t.Fatalf("%q: %q %v", in, got, err)
		}
	}
}
