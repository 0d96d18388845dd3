package venue_test

import (
	"encoding/json"
	"strings"
	"testing"

	venue "github.com/gridvenue/venue"
)

const (
	hex32 = "0123456789abcdef0123456789abcdef"
	hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

func mustJobID(tb testing.TB, s string) venue.JobID {
	tb.Helper()
	id, err := venue.ParseJobID(s)
	if err != nil {
		tb.Fatalf("ParseJobID(%q): %v", s, err)
	}
	return id
}

func mustAssetID(tb testing.TB, s string) venue.AssetID {
	tb.Helper()
	id, err := venue.ParseAssetID(s)
	if err != nil {
		tb.Fatalf("ParseAssetID(%q): %v", s, err)
	}
	return id
}

func TestParseJobID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		wantHex string // "" means the parse must fail
	}{
		{"0x prefix", "0x" + hex32, hex32},
		{"0X prefix", "0X" + hex32, hex32},
		{"bare hex", hex32, hex32},
		{"upper-case digits read as lower", "0x" + strings.ToUpper(hex32), hex32},
		{"all zero", "0x" + strings.Repeat("0", 32), strings.Repeat("0", 32)},
		{"all f", strings.Repeat("f", 32), strings.Repeat("f", 32)},
		{"empty is rejected", "", ""},
		{"prefix alone is rejected", "0x", ""},
		{"31 digits are rejected", hex32[:31], ""},
		{"33 digits are rejected", hex32 + "0", ""},
		{"odd length with prefix is rejected", "0x" + hex32[:31], ""},
		{"64 digits (an asset id) are rejected", "0x" + hex64, ""},
		{"non-hex digit is rejected", "0x" + hex32[:31] + "g", ""},
		{"space is rejected", " 0x" + hex32, ""},
		{"trailing newline is rejected", "0x" + hex32 + "\n", ""},
		{"a/ prefix is not a job id", "a/" + hex32, ""},
		{"uuid form is rejected", "01234567-89ab-cdef-0123-456789abcdef", ""},
		// One prefix only: "0x0X..." is not 32 hex digits after a prefix.
		{"doubled 0x0X prefix is rejected", "0x0X" + hex32, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := venue.ParseJobID(tc.in)
			if tc.wantHex == "" {
				if err == nil {
					t.Fatalf("ParseJobID(%q) = %v, want an error", tc.in, id)
				}
				if got := venue.ErrorCode(err); got != venue.EINVALID {
					t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
				}
				if !strings.Contains(err.Error(), "32 hex digits") {
					t.Errorf("message %q does not say what a job id looks like", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseJobID(%q): %v", tc.in, err)
			}
			if got := id.Hex(); got != tc.wantHex {
				t.Errorf("Hex() = %q, want %q", got, tc.wantHex)
			}
		})
	}
}

func TestParseJobID_LongInputIsClippedInMessage(t *testing.T) {
	in := strings.Repeat("z", 5000)
	_, err := venue.ParseJobID(in)
	if err == nil {
		t.Fatal("want an error")
	}
	if len(err.Error()) > 400 {
		t.Errorf("message is %d bytes: untrusted input is echoed unclipped", len(err.Error()))
	}
}

func TestJobID_String(t *testing.T) {
	for _, tc := range []struct {
		name    string
		id      venue.JobID
		wantStr string
		wantHex string
	}{
		{"zero", venue.JobID{}, "0x" + strings.Repeat("0", 32), strings.Repeat("0", 32)},
		{"counting bytes", venue.JobID{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef},
			"0x" + hex32, hex32},
		{"high bytes print lower-case", venue.JobID{0: 0xff, 15: 0xAB}, "0xff" + strings.Repeat("0", 28) + "ab", "ff" + strings.Repeat("0", 28) + "ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.id.String(); got != tc.wantStr {
				t.Errorf("String() = %q, want %q", got, tc.wantStr)
			}
			if got := tc.id.Hex(); got != tc.wantHex {
				t.Errorf("Hex() = %q, want %q", got, tc.wantHex)
			}
			if back := mustJobID(t, tc.id.String()); back != tc.id {
				t.Errorf("ParseJobID(String()) = %v, want %v", back, tc.id)
			}
			if back := mustJobID(t, tc.id.Hex()); back != tc.id {
				t.Errorf("ParseJobID(Hex()) = %v, want %v", back, tc.id)
			}
		})
	}
}

func TestJobID_MarshalText(t *testing.T) {
	id := mustJobID(t, hex32)
	b, err := id.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "0x"+hex32 {
		t.Errorf("MarshalText = %q, want %q", b, "0x"+hex32)
	}
	j, err := json.Marshal(map[string]venue.JobID{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"0x` + hex32 + `"}`; string(j) != want {
		t.Errorf("json.Marshal = %s, want %s", j, want)
	}
}

func TestJobID_UnmarshalText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    venue.JobID
		wantErr bool
	}{
		{"prefixed", "0x" + hex32, mustJobID(t, hex32), false},
		{"bare", hex32, mustJobID(t, hex32), false},
		{"short", "0x1234", venue.JobID{}, true},
		{"not hex", strings.Repeat("x", 32), venue.JobID{}, true},
		{"empty", "", venue.JobID{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := venue.JobID{0: 0x55} // must stay untouched on error
			err := id.UnmarshalText([]byte(tc.in))
			if tc.wantErr {
				if err == nil {
					t.Fatalf("UnmarshalText(%q) succeeded: %v", tc.in, id)
				}
				if id != (venue.JobID{0: 0x55}) {
					t.Errorf("failed UnmarshalText changed the id to %v", id)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalText(%q): %v", tc.in, err)
			}
			if id != tc.want {
				t.Errorf("got %v, want %v", id, tc.want)
			}
		})
	}
}

func TestJobID_JSONRoundTrip(t *testing.T) {
	in := struct {
		ID     venue.JobID  `json:"id"`
		Parent *venue.JobID `json:"parent"`
	}{ID: mustJobID(t, hex32)}
	p := mustJobID(t, strings.Repeat("ab", 16))
	in.Parent = &p
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := in
	out.ID, out.Parent = venue.JobID{}, nil
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != in.ID || out.Parent == nil || *out.Parent != p {
		t.Errorf("round trip of %s = %+v, want %+v", b, out, in)
	}
}

func TestParseAssetID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		wantHex string // "" means the parse must fail
	}{
		{"0x prefix", "0x" + hex64, hex64},
		{"0X prefix", "0X" + hex64, hex64},
		{"bare hex", hex64, hex64},
		{"upper-case digits", strings.ToUpper(hex64), hex64},
		{"a/ prefix", "a/" + hex64, hex64},
		{"/a/ prefix", "/a/" + hex64, hex64},
		{"a/0x prefix", "a/0x" + hex64, hex64},
		{"empty is rejected", "", ""},
		{"0x alone is rejected", "0x", ""},
		{"a/ alone is rejected", "a/", ""},
		{"63 digits are rejected", hex64[:63], ""},
		{"65 digits are rejected", hex64 + "0", ""},
		{"32 digits (a job id) are rejected", "0x" + hex32, ""},
		{"62 digits with prefix are rejected", "0x" + hex64[:62], ""},
		{"non-hex digit is rejected", "0x" + hex64[:63] + "g", ""},
		{"a/ with short hash is rejected", "a/short", ""},
		{"a/ with trailing segment is rejected", "a/" + hex64 + "/x", ""},
		{"other namespace is rejected", "v/" + hex64, ""},
		{"double a/ is rejected", "a/a/" + hex64, ""},
		{"space is rejected", hex64[:63] + " ", ""},
		{"non-ASCII is rejected", hex64[:62] + "é", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := venue.ParseAssetID(tc.in)
			if tc.wantHex == "" {
				if err == nil {
					t.Fatalf("ParseAssetID(%q) = %v, want an error", tc.in, id)
				}
				if got := venue.ErrorCode(err); got != venue.EINVALID {
					t.Errorf("ErrorCode = %q, want %q", got, venue.EINVALID)
				}
				if !strings.Contains(err.Error(), "64 hex digits") {
					t.Errorf("message %q does not say what an asset id looks like", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAssetID(%q): %v", tc.in, err)
			}
			if got := id.Hex(); got != tc.wantHex {
				t.Errorf("Hex() = %q, want %q", got, tc.wantHex)
			}
			if got := id.String(); got != "0x"+tc.wantHex {
				t.Errorf("String() = %q, want %q", got, "0x"+tc.wantHex)
			}
			if back := mustAssetID(t, id.String()); back != id {
				t.Errorf("ParseAssetID(String()) = %v, want %v", back, id)
			}
		})
	}
}

// TestParseAssetID_UndocumentedForms pins the forms the doc comment does not
// list.
func TestParseAssetID_UndocumentedForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		// decodeHex strips "0x" then "0X".
		{"doubled 0x0X prefix is rejected", "0x0X" + hex64},
		// The leading "/" is stripped on its own, so "/<hex>" passes
		// although only "/a/<hex>" is documented.
		{"slash without a/ is rejected", "/" + hex64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if id, err := venue.ParseAssetID(tc.in); err == nil {
				t.Errorf("ParseAssetID(%q) = %v, want EINVALID (not a documented form)", tc.in, id)
			}
		})
	}
}

func FuzzParseJobID(f *testing.F) {
	for _, s := range []string{
		"0x" + hex32, hex32, "0X" + strings.ToUpper(hex32), "", "0x", hex32[:31], hex32 + "0",
		"0x0X" + hex32, "0x" + hex32[:31] + "g", "a/" + hex32, " " + hex32,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := venue.ParseJobID(s)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParseJobID(%q): code %q", s, venue.ErrorCode(err))
			}
			return
		}
		for _, form := range []string{id.String(), id.Hex()} {
			back, err := venue.ParseJobID(form)
			if err != nil || back != id {
				t.Fatalf("ParseJobID(%q) = %v, %v; want %v (from %q)", form, back, err, id, s)
			}
		}
		if !strings.HasSuffix(strings.ToLower(s), id.Hex()) {
			t.Fatalf("ParseJobID(%q) = %v, whose digits are not the input's", s, id)
		}
		var u venue.JobID
		if err := u.UnmarshalText([]byte(s)); err != nil || u != id {
			t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", s, u, err, id)
		}
	})
}

func FuzzParseAssetID(f *testing.F) {
	for _, s := range []string{
		"0x" + hex64, hex64, "a/" + hex64, "/a/" + hex64, "a/0x" + hex64, "", "0x", "a/", "a/short",
		hex64[:63], hex64 + "0", "/" + hex64, "0x0X" + hex64, "a/a/" + hex64, "v/" + hex64,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := venue.ParseAssetID(s)
		if err != nil {
			if venue.ErrorCode(err) != venue.EINVALID {
				t.Fatalf("ParseAssetID(%q): code %q", s, venue.ErrorCode(err))
			}
			return
		}
		for _, form := range []string{id.String(), id.Hex(), "a/" + id.Hex(), "/a/" + id.Hex()} {
			back, err := venue.ParseAssetID(form)
			if err != nil || back != id {
				t.Fatalf("ParseAssetID(%q) = %v, %v; want %v (from %q)", form, back, err, id, s)
			}
		}
		if !strings.HasSuffix(strings.ToLower(s), id.Hex()) {
			t.Fatalf("ParseAssetID(%q) = %v, whose digits are not the input's", s, id)
		}
	})
}

func TestJobIDAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		ms   int64
		tail uint64
		want string
	}{
		{"a time, no tail", 0x0192f3c4a5b6, 0, "0x0192f3c4a5b600000000000000000000"},
		{"a time and a tail", 0x0192f3c4a5b6, 0x0102030405060708, "0x0192f3c4a5b600000102030405060708"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := venue.JobIDAt(tc.ms, tc.tail).String(); got != tc.want {
				t.Fatalf("JobIDAt(%#x, %#x) = %s, want %s", tc.ms, tc.tail, got, tc.want)
			}
		})
	}
	if a, b := venue.JobIDAt(1000, ^uint64(0)), venue.JobIDAt(1001, 0); a.String() >= b.String() {
		t.Fatalf("an id of an earlier millisecond (%s) does not sort before the next one's floor (%s)", a, b)
	}
}
