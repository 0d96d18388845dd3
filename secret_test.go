package venue_test

import (
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

func TestValidSecretName(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"upper snake case", "OPENAI_API_KEY", true},
		{"one letter", "a", true},
		{"one digit", "7", true},
		{"starts with a digit", "1password", true},
		{"dots and dashes", "github.token-v2", true},
		{"128 bytes", strings.Repeat("K", venue.MaxSecretNameLen), true},
		{"empty", "", false},
		{"129 bytes", strings.Repeat("K", venue.MaxSecretNameLen+1), false},
		{"starts with underscore", "_KEY", false},
		{"starts with dash", "-KEY", false},
		{"starts with dot", ".KEY", false},
		{"holds a slash", "s/KEY", false},
		{"holds a colon", "core:KEY", false},
		{"holds a space", "MY KEY", false},
		{"holds a newline", "KEY\n", false},
		{"holds NUL", "KEY\x00", false},
		{"non-ASCII letter", "CLÉ", false},
		{"dot-dot", "..", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := venue.ValidSecretName(tc.in); got != tc.want {
				t.Errorf("ValidSecretName(%q) = %v, want %v", tc.in, got, tc.want)
			}
			err := venue.CheckSecretName(tc.in)
			if tc.want {
				if err != nil {
					t.Errorf("CheckSecretName(%q): %v", tc.in, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckSecretName(%q) = nil, want an error", tc.in)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			if !strings.Contains(err.Error(), "use 1 to 128 letters, digits, '_', '-' or '.', starting with a letter or digit") {
				t.Errorf("message %q does not say what a name may hold", err)
			}
		})
	}
}

func TestParseSecretRef(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		wantName string // "" means the parse must fail
	}{
		{"s/ reference", "s/OPENAI_API_KEY", "OPENAI_API_KEY"},
		{"/s/ reference", "/s/OPENAI_API_KEY", "OPENAI_API_KEY"},
		{"bare name", "OPENAI_API_KEY", "OPENAI_API_KEY"},
		{"name s itself", "s", "s"},
		{"reference to a secret named s", "s/s", "s"},
		{"dotted name", "s/github.token", "github.token"},
		{"empty", "", ""},
		{"s/ alone", "s/", ""},
		{"/s/ alone", "/s/", ""},
		{"nested path", "s/a/b", ""},
		{"doubled slash", "s//KEY", ""},
		{"doubled namespace", "s/s/KEY", ""},
		{"upper-case namespace", "S/KEY", ""},
		{"other namespace", "w/KEY", ""},
		{"invalid name", "s/_KEY", ""},
		{"name with a space", "s/MY KEY", ""},
		{"over-long name", "s/" + strings.Repeat("K", venue.MaxSecretNameLen+1), ""},
		{"template placeholder", "${OPENAI_API_KEY}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, err := venue.ParseSecretRef(tc.in)
			if tc.wantName == "" {
				if err == nil {
					t.Fatalf("ParseSecretRef(%q) = %q, want an error", tc.in, name)
				}
				if got := venue.ErrorCode(err); got != venue.EINVALID {
					t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
				}
				if !strings.Contains(err.Error(), "write s/NAME") {
					t.Errorf("message %q does not say how to write a reference", err)
				}
				if name != "" {
					t.Errorf("failed parse returned name %q", name)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSecretRef(%q): %v", tc.in, err)
			}
			if name != tc.wantName {
				t.Errorf("ParseSecretRef(%q) = %q, want %q", tc.in, name, tc.wantName)
			}
		})
	}
}

func FuzzParseSecretRef(f *testing.F) {
	for _, s := range []string{
		"s/OPENAI_API_KEY", "/s/KEY", "KEY", "s", "s/", "s/s", "s/a/b", "", "/", "/KEY",
		"s/_x", "s/" + strings.Repeat("K", 129), "s/é", "s/KEY\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		name, err := venue.ParseSecretRef(ref)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParseSecretRef(%q): code %q", ref, venue.ErrorCode(err))
			}
			return
		}
		if !venue.ValidSecretName(name) || venue.CheckSecretName(name) != nil {
			t.Fatalf("ParseSecretRef(%q) = %q, which is not a valid name", ref, name)
		}
		if len(name) == 0 || len(name) > venue.MaxSecretNameLen || strings.ContainsAny(name, "/:\x00 ") {
			t.Fatalf("ParseSecretRef(%q) = %q", ref, name)
		}
		if !strings.HasSuffix(ref, name) {
			t.Fatalf("ParseSecretRef(%q) = %q, not a suffix of the reference", ref, name)
		}
		for _, form := range []string{"s/" + name, "/s/" + name, name} {
			if again, err := venue.ParseSecretRef(form); err != nil || again != name {
				t.Fatalf("ParseSecretRef(%q) = %q, %v; want %q", form, again, err, name)
			}
		}
	})
}
