package jsonscan

import "testing"

func TestCaseVariant(t *testing.T) {
	names := []string{"path", "maxSize"}
	for _, tc := range []struct {
		name, in, got, want string
	}{
		{"exact names", `{"path":"w/a","maxSize":3}`, "", ""},
		{"other names", `{"path":"w/a","note":{"Path":1}}`, "", ""},
		{"a variant after the name", `{"path":"w/a","Path":"w/b"}`, "Path", "path"},
		{"a variant alone", `{"maxsize":1}`, "maxsize", "maxSize"},
		{"a variant with spaces", `{ "PATH" : "s/X" }`, "PATH", "path"},
		{"a variant spelled with an escape", `{"\u0050ath":"w/b"}`, "Path", "path"},
		{"not an object", `["Path"]`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := CaseVariant([]byte(tc.in), names)
			if got != tc.got || want != tc.want {
				t.Fatalf("CaseVariant(%s) = %q, %q; want %q, %q", tc.in, got, want, tc.got, tc.want)
			}
		})
	}
}
