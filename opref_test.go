package venue_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

const resolveMsg = "Error invoking operation: IllegalArgumentException:Cannot resolve operation: "

func TestParseOpRef(t *testing.T) {
	asset := mustAssetID(t, hex64)
	didKey := "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
	for _, tc := range []struct {
		name      string
		in        string
		wantKind  venue.OpRefKind
		wantPath  string // RefPath, RefDID with a path
		wantAsset venue.AssetID
		wantName  string
		wantDID   string
	}{
		{"catalog path", "v/ops/core/read", venue.RefPath, "v/ops/core/read", venue.AssetID{}, "", ""},
		{"kebab-case catalog path", "v/ops/grid/job-result", venue.RefPath, "v/ops/grid/job-result", venue.AssetID{}, "", ""},
		{"catalog path with leading slash", "/v/ops/core/read", venue.RefPath, "v/ops/core/read", venue.AssetID{}, "", ""},
		{"test catalog path", "v/test/ops/echo", venue.RefPath, "v/test/ops/echo", venue.AssetID{}, "", ""},
		{"workspace pin", "o/my-op", venue.RefPath, "o/my-op", venue.AssetID{}, "", ""},
		{"workspace path", "w/ops/summarise", venue.RefPath, "w/ops/summarise", venue.AssetID{}, "", ""},
		{"a/ asset", "a/" + hex64, venue.RefAsset, "", asset, "", ""},
		{"/a/ asset", "/a/" + hex64, venue.RefAsset, "", asset, "", ""},
		{"0x asset", "0x" + hex64, venue.RefAsset, "", asset, "", ""},
		{"0X asset", "0X" + hex64, venue.RefAsset, "", asset, "", ""},
		{"bare hex asset", hex64, venue.RefAsset, "", asset, "", ""},
		{"upper-case hex asset", strings.ToUpper(hex64), venue.RefAsset, "", asset, "", ""},
		{"registered name", "echo", venue.RefName, "", venue.AssetID{}, "echo", ""},
		{"registered name with punctuation", "my-op_v2.1", venue.RefName, "", venue.AssetID{}, "my-op_v2.1", ""},
		{"registered name starting with a digit", "0x12", venue.RefName, "", venue.AssetID{}, "0x12", ""},
		{"registered name of 128 bytes", strings.Repeat("n", 128), venue.RefName, "", venue.AssetID{}, strings.Repeat("n", 128), ""},
		{"did:web URL to a catalog path", "did:web:127.0.0.1%3A8080/v/ops/core/read", venue.RefDID, "v/ops/core/read", venue.AssetID{}, "", "did:web:127.0.0.1%3A8080"},
		{"did:web URL with path segments in the DID", "did:web:venue.example:grid/v/ops/http/get", venue.RefDID, "v/ops/http/get", venue.AssetID{}, "", "did:web:venue.example:grid"},
		{"did:key URL to an asset", didKey + "/a/" + hex64, venue.RefDID, "", asset, "", didKey},
		{"an asset's own DID", "did:web:127.0.0.1%3A8080:a:" + hex64, venue.RefDID, "", asset, "", "did:web:127.0.0.1%3A8080"},
		{"an asset's own DID under a venue with a path", "did:web:venue.example:grid:a:" + hex64, venue.RefDID, "", asset, "", "did:web:venue.example:grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := venue.ParseOpRef(tc.in)
			if err != nil {
				t.Fatalf("ParseOpRef(%q): %v", tc.in, err)
			}
			if ref.Raw != tc.in {
				t.Errorf("Raw = %q, want %q", ref.Raw, tc.in)
			}
			if ref.Kind != tc.wantKind {
				t.Errorf("Kind = %v, want %v", ref.Kind, tc.wantKind)
			}
			if got := strings.Join(ref.Path.Segments, "/"); got != tc.wantPath {
				t.Errorf("Path = %q, want %q", got, tc.wantPath)
			}
			if ref.Asset != tc.wantAsset {
				t.Errorf("Asset = %v, want %v", ref.Asset, tc.wantAsset)
			}
			if ref.Name != tc.wantName {
				t.Errorf("Name = %q, want %q", ref.Name, tc.wantName)
			}
			if ref.DID != tc.wantDID {
				t.Errorf("DID = %q, want %q", ref.DID, tc.wantDID)
			}
		})
	}
}

func TestParseOpRef_Rejects(t *testing.T) {
	long := strings.Repeat("v", 3000)
	for _, tc := range []struct {
		name    string
		in      string
		wantMsg string // exact; "" means resolveMsg + in
	}{
		{"display form", "core:read", resolveMsg + "core:read"},
		{"display form of http", "http:get", ""},
		{"kebab display form", "grid:job-result", ""},
		{"empty", "", resolveMsg},
		{"short asset", "a/short", ""},
		{"asset with 63 digits", "a/" + hex64[:63], ""},
		{"asset with trailing segment", "a/" + hex64 + "/x", ""},
		{"bare a/", "a/", ""},
		{"doubled slash", "v//x", ""},
		{"trailing slash", "v/ops/core/read/", ""},
		{"dot-dot", "v/ops/../secrets", ""},
		{"unknown namespace", "x/ops/core/read", ""},
		{"control character", "v/ops/core/re\nad", ""},
		{"did:web without path", "did:web", ""},
		{"did:web host without path", "did:web:127.0.0.1%3A8080", ""},
		{"did with empty path", "did:web:venue.example/", ""},
		{"did without method-specific id", "did:web/v/ops/core/read", ""},
		{"did with a bad path", "did:web:venue.example/v//x", ""},
		{"did with an unknown namespace", "did:web:venue.example/ops/core/read", ""},
		{"did with a short asset", "did:key:z6Mk/a/short", ""},
		{"name starting with a dash", "-echo", ""},
		{"name with a space", "echo me", ""},
		{"name of 129 bytes", strings.Repeat("n", 129), ""},
		{"non-ASCII name", "éécho", ""},
		{"URL", "https://venue.example/v/ops/core/read", ""},
		{"3000-byte string", long, resolveMsg + long[:100] + "…"},
		{"3000-byte path", "v/" + strings.Repeat("x", 2998), resolveMsg + "v/" + strings.Repeat("x", 98) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := venue.ParseOpRef(tc.in)
			if err == nil {
				t.Fatalf("ParseOpRef(%q) = %+v, want an error", tc.in, ref)
			}
			if got := venue.ErrorCode(err); got != venue.EINVALID {
				t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
			}
			want := tc.wantMsg
			if want == "" {
				want = resolveMsg + clipped(tc.in)
			}
			if err.Error() != want {
				t.Errorf("message = %q\nwant      %q", err, want)
			}
		})
	}
}

func TestUnresolvableOp(t *testing.T) {
	err := venue.UnresolvableOp("core:read")
	if err.Code != venue.EINVALID {
		t.Errorf("Code = %q, want %q", err.Code, venue.EINVALID)
	}
	if want := "Error invoking operation: IllegalArgumentException:Cannot resolve operation: core:read"; err.Message != want {
		t.Errorf("Message = %q, want %q", err.Message, want)
	}
}

// clipped is how messages echo untrusted input: at most 100 bytes, then "…".
func clipped(s string) string {
	if len(s) <= 100 {
		return s
	}
	return s[:100] + "…"
}

var displayForm = regexp.MustCompile(`^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$`)

func FuzzParseOpRef(f *testing.F) {
	for _, s := range []string{
		"v/ops/core/read", "o/pin", "w/ops/x", "a/" + hex64, "0x" + hex64, hex64, "echo",
		"did:web:127.0.0.1%3A8080/v/ops/core/read", "did:key:z6Mk/a/" + hex64,
		"core:read", "", "a/short", "v//x", "did:web", "did:web:x/", "did:a:b//v/ops",
		"/" + hex64, "0x0X" + hex64, "a/0x" + hex64, strings.Repeat("x", 3000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := venue.ParseOpRef(s)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParseOpRef(%q): code %q, want %q", s, venue.ErrorCode(err), venue.EINVALID)
			}
			if !strings.HasPrefix(err.Error(), resolveMsg) {
				t.Fatalf("ParseOpRef(%q): message %q lacks the spec's prefix", s, err)
			}
			return
		}
		if ref.Raw != s {
			t.Fatalf("ParseOpRef(%q).Raw = %q", s, ref.Raw)
		}
		if len(s) > venue.MaxRefLen {
			t.Fatalf("accepted a %d-byte reference", len(s))
		}
		if !strings.HasPrefix(s, "did:") && displayForm.MatchString(s) && strings.Contains(s, ":") {
			t.Fatalf("display form %q was accepted as %+v", s, ref)
		}
		again, err := venue.ParseOpRef(ref.Raw)
		if err != nil || again.Kind != ref.Kind || again.Asset != ref.Asset || again.Name != ref.Name ||
			again.DID != ref.DID || !slices.Equal(again.Path.Segments, ref.Path.Segments) {
			t.Fatalf("re-parse of Raw %q = %+v, %v; want %+v", ref.Raw, again, err, ref)
		}
		switch ref.Kind {
		case venue.RefPath:
			p, err := venue.ParsePath(ref.Path.String())
			if err != nil || !slices.Equal(p.Segments, ref.Path.Segments) {
				t.Fatalf("RefPath %q holds path %q that does not re-parse: %v", s, ref.Path.Segments, err)
			}
			if p.Namespace() == venue.NSAssets {
				t.Fatalf("RefPath %q is in the asset namespace", s)
			}
		case venue.RefAsset:
			if ref.Asset == (venue.AssetID{}) && !strings.Contains(s, strings.Repeat("0", 64)) {
				t.Fatalf("RefAsset %q has a zero asset id", s)
			}
		case venue.RefName:
			if ref.Name != s || strings.ContainsAny(s, ":/") {
				t.Fatalf("RefName %q has name %q", s, ref.Name)
			}
		case venue.RefDID:
			if !strings.HasPrefix(s, ref.DID+"/") || strings.Count(ref.DID, ":") < 2 {
				t.Fatalf("RefDID %q has DID %q", s, ref.DID)
			}
			if len(ref.Path.Segments) > 0 {
				if _, err := venue.ParsePath(ref.Path.String()); err != nil {
					t.Fatalf("RefDID %q holds path %q that does not parse: %v", s, ref.Path.Segments, err)
				}
			}
		default:
			t.Fatalf("ParseOpRef(%q) accepted with kind %v", s, ref.Kind)
		}
	})
}
