package rest

import (
	"strings"
	"testing"
)

func TestRangeOf(t *testing.T) {
	const size = 1000
	for _, tc := range []struct {
		name, field string
		want        byteRange
		whole       bool
		err         string // part of the 416's message; "" for none
	}{
		{"no field", "", byteRange{}, true, ""},
		{"first-last", "bytes=0-99", byteRange{0, 100}, false, ""},
		{"one byte", "bytes=5-5", byteRange{5, 1}, false, ""},
		{"first-", "bytes=900-", byteRange{900, 100}, false, ""},
		{"last byte", "bytes=999-", byteRange{999, 1}, false, ""},
		{"a last past the end is cut", "bytes=990-5000", byteRange{990, 10}, false, ""},
		{"a last past 64 bits is cut", "bytes=1-99999999999999999999", byteRange{1, 999}, false, ""},
		{"a suffix", "bytes=-10", byteRange{990, 10}, false, ""},
		{"a suffix longer than the content is all of it", "bytes=-5000", byteRange{0, 1000}, false, ""},
		{"the unit in capitals, spaces around", "Bytes = 0-1 ", byteRange{0, 2}, false, ""},
		{"an empty list member", "bytes=,0-1,", byteRange{0, 2}, false, ""},
		{"another unit is ignored", "items=0-1", byteRange{}, true, ""},
		{"no unit is ignored", "0-1", byteRange{}, true, ""},
		{"several ranges are all of it", "bytes=0-1,5-9", byteRange{}, true, ""},
		{"no range", "bytes=", byteRange{}, false, "names no range"},
		{"no dash", "bytes=10", byteRange{}, false, "is malformed"},
		{"a lone dash", "bytes=-", byteRange{}, false, "is malformed"},
		{"a sign", "bytes=+1-2", byteRange{}, false, "is malformed"},
		{"a negative last", "bytes=1--2", byteRange{}, false, "is malformed"},
		{"spaces inside", "bytes=1 - 2", byteRange{}, false, "is malformed"},
		{"hex", "bytes=0x1-2", byteRange{}, false, "is malformed"},
		{"ends before it starts", "bytes=9-1", byteRange{}, false, "ends before it starts"},
		{"starts at the end", "bytes=1000-", byteRange{}, false, "starts past the end: the content has 1000 bytes"},
		{"starts past 64 bits", "bytes=99999999999999999999-", byteRange{}, false, "starts past the end"},
		{"a suffix of nothing", "bytes=-0", byteRange{}, false, "selects no byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, whole, err := rangeOf(tc.field, size)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("rangeOf(%q) = %v, %v, %v; want an error with %q", tc.field, got, whole, err, tc.err)
				}
				return
			}
			if err != nil || whole != tc.whole || got != tc.want {
				t.Fatalf("rangeOf(%q) = %v, %v, %v; want %v, %v", tc.field, got, whole, err, tc.want, tc.whole)
			}
		})
	}
	t.Run("empty content has no range", func(t *testing.T) {
		for _, field := range []string{"bytes=0-", "bytes=-1", "bytes=0-0"} {
			if _, _, err := rangeOf(field, 0); err == nil || strings.Contains(err.Error(), "byte -1") || !strings.Contains(err.Error(), "ask without Range") {
				t.Errorf("rangeOf(%q, 0) = %v, want an error saying to ask without Range", field, err)
			}
		}
	})
	t.Run("Content-Range", func(t *testing.T) {
		if got := (byteRange{990, 10}).contentRange(size); got != "bytes 990-999/1000" {
			t.Fatalf("contentRange = %q", got)
		}
	})
}

// FuzzRangeOf feeds Range fields from outside: a range it gives lies inside
// the content and is not empty.
func FuzzRangeOf(f *testing.F) {
	for _, seed := range []string{"", "bytes=0-99", "bytes=-5", "bytes=7-", "bytes=,", "bytes=1-0", "bytes=0-1,2-3", "x=1", "bytes=99999999999999999999-"} {
		f.Add(seed, int64(100))
	}
	f.Fuzz(func(t *testing.T, field string, size int64) {
		if size < 0 {
			size = -(size + 1)
		}
		r, whole, err := rangeOf(field, size)
		if err != nil || whole {
			return
		}
		if r.start < 0 || r.length < 1 || r.start+r.length > size || r.start+r.length < r.start {
			t.Fatalf("rangeOf(%q, %d) = %+v, outside the content", field, size, r)
		}
	})
}
