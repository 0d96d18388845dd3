package venue

import (
	"strings"
	"testing"
)

func TestValidDID(t *testing.T) {
	for _, tc := range []struct {
		name, did string
		want      bool
	}{
		{"did:key", "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", true},
		{"did:web with a port and a path", "did:web:127.0.0.1%3A8080:u:public", true},
		{"an id with . - _", "did:example:a.b-c_d", true},
		{"no method", "did::x", false},
		{"no id", "did:key:", false},
		{"an empty method and id", "did:", false},
		{"a method with capitals", "did:Key:z6Mk", false},
		{"nothing after the method", "did:key", false},
		{"a trailing colon", "did:web:host:", false},
		{"a bad escape", "did:web:host%3", false},
		{"an escape that is not hex", "did:web:host%zz", false},
		{"a slash", "did:web:host/x", false},
		{"a space", "did:web:my host", false},
		{"not a did", "dod:key:z6Mk", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidDID(tc.did); got != tc.want {
				t.Fatalf("ValidDID(%q) = %v, want %v", tc.did, got, tc.want)
			}
		})
	}
}

// FuzzValidDID: a DID that passes is made only of the characters the
// syntax allows, with a method of lowercase letters and digits.
func FuzzValidDID(f *testing.F) {
	for _, s := range []string{"did:key:z6Mk", "did:web:h%3A1:u:x", "did::", "did:a:%", "did:a:b:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidDID(s) {
			return
		}
		method, id, ok := strings.Cut(strings.TrimPrefix(s, "did:"), ":")
		if !ok || method == "" || id == "" || strings.Trim(method, "abcdefghijklmnopqrstuvwxyz0123456789") != "" ||
			strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:%") != "" || strings.HasSuffix(id, ":") {
			t.Fatalf("ValidDID(%q) passed", s)
		}
	})
}
