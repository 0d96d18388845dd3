package rest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// chunked reads b in pieces of the given sizes, cycling.
type chunked struct {
	b     []byte
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(c.sizes[c.i%len(c.sizes)], len(p), len(c.b))
	c.i++
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// readUTF8 reads b through utf8Body in the given pieces and returns what
// it read and the error it ended with.
func readUTF8(b []byte, sizes []int) ([]byte, error) {
	return io.ReadAll(&utf8Body{r: io.NopCloser(&chunked{b: b, sizes: sizes})})
}

func TestUTF8Body(t *testing.T) {
	euro := "\u20ac" // three bytes
	for _, tc := range []struct {
		name  string
		body  string
		sizes []int
		bad   int // the offset named in the error; -1 for none
	}{
		{"ASCII", `{"a":"b"}`, []int{3}, -1},
		{"characters cut across every read", `{"a":"` + euro + euro + `😀"}`, []int{1}, -1},
		{"cut after two bytes", `{"a":"` + euro + `"}`, []int{8}, -1},
		{"a stray continuation byte", "{\"a\":\"\x80\"}", []int{64}, 6},
		{"a byte no UTF-8 has", "{\"a\":\"x\xff\"}", []int{1}, 7},
		{"a character left unfinished at the end", "{\"a\":1}\xe2\x82", []int{4}, 7},
		{"an overlong encoding", "\xc0\xaf", []int{1}, 0},
		{"a surrogate", "\xed\xa0\x80", []int{2}, 0},
		{"bad after a cut character", "" + euro + "\xff", []int{2}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readUTF8([]byte(tc.body), tc.sizes)
			if tc.bad < 0 {
				if err != nil || string(got) != tc.body {
					t.Fatalf("read %q, %v", got, err)
				}
				return
			}
			want := venue.Errorf(venue.EINVALID, "Request body is not valid JSON: it is not UTF-8 (byte %d); send JSON encoded as UTF-8", tc.bad)
			if venue.ErrorMessage(err) != want.Message {
				t.Fatalf("error %v, want %v", err, want)
			}
		})
	}
	t.Run("a byte-order mark, however the reads cut it", func(t *testing.T) {
		for _, sizes := range [][]int{{64}, {1}, {2, 64}, {1, 1, 1}} {
			if _, err := readUTF8([]byte("\xef\xbb\xbf{}"), sizes); err != errBOM {
				t.Fatalf("reads of %v: %v, want the byte-order mark refused", sizes, err)
			}
		}
		if got, err := readUTF8([]byte("\xef\xbb{}"), []int{1}); err == nil {
			t.Fatalf("read %q without error", got)
		}
		if got, err := readUTF8([]byte(`"\ufeff"`), []int{1}); err != nil {
			t.Fatalf("a mark inside a string: %q, %v", got, err)
		}
	})
	t.Run("passes reader errors through", func(t *testing.T) {
		_, err := io.ReadAll(&utf8Body{r: io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF))})
		if err != io.ErrUnexpectedEOF {
			t.Fatal(err)
		}
	})
}

// FuzzUTF8Body checks the streaming check against utf8.Valid on the whole
// body, however the body is cut into reads.
func FuzzUTF8Body(f *testing.F) {
	f.Add([]byte("{\"a\":\"\u20ac\"}"), uint8(1), uint8(2))
	f.Add([]byte("\xe2\x82"), uint8(1), uint8(1))
	f.Add([]byte("a\xf0\x9f\x98\x80b\xff"), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, s1, s2 uint8) {
		got, err := readUTF8(b, []int{int(s1%7) + 1, int(s2%7) + 1})
		if valid := utf8.Valid(b); valid != (err == nil) {
			t.Fatalf("body %q: valid %v, error %v", b, valid, err)
		}
		if err == nil && !bytes.Equal(got, b) {
			t.Fatalf("read %q of %q", got, b)
		}
	})
}
