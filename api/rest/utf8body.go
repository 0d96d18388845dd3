package rest

import (
	"bytes"
	"io"
	"unicode/utf8"

	venue "github.com/gridvenue/venue"
)

// utf8Body is a JSON request body that fails the read at the first byte
// that is not UTF-8: encoding/json would turn such bytes into U+FFFD in a
// string (silently changing a secret's value) and keep them as they are in
// raw JSON (storing asset metadata or a reply no JSON reader accepts).
type utf8Body struct {
	r    io.ReadCloser
	tail []byte // the start of a character the last read cut off
	seen int64  // bytes checked before tail
	head []byte // the body's first bytes, until there are len(bom)
}

func (b *utf8Body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if len(b.head) < len(bom) && n > 0 {
		b.head = append(b.head, p[:min(n, len(bom)-len(b.head))]...)
		if bytes.Equal(b.head, bom) {
			return n, errBOM
		}
	}
	if bad := b.check(p[:n], err == io.EOF); bad >= 0 {
		return n, notUTF8(bad)
	}
	return n, err
}

// bom is the UTF-8 byte-order mark, which JSON text must not begin with
// (RFC 8259, 8.1) and which encoding/json reports as "invalid character
// 'ï'": said plainly instead.
var bom = []byte{0xEF, 0xBB, 0xBF}

var errBOM = venue.Errorf(venue.EINVALID, "Request body is not valid JSON: it begins with a byte-order mark (EF BB BF); send the JSON without it")

// notUTF8 words a body that stops being UTF-8 at byte at.
func notUTF8(at int64) error {
	return venue.Errorf(venue.EINVALID, "Request body is not valid JSON: it is not UTF-8 (byte %d); send JSON encoded as UTF-8", at)
}

// firstNotUTF8 returns the offset of the first byte of b that does not
// begin a valid character, len(b) if there is none.
func firstNotUTF8(b []byte) int {
	at := 0
	for at < len(b) {
		r, size := utf8.DecodeRune(b[at:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		at += size
	}
	return at
}

func (b *utf8Body) Close() error { return b.r.Close() }

// check checks the next chunk of the body, and at the end that no
// character is left unfinished. It returns the offset in the body of the
// first byte that is not UTF-8, or -1.
func (b *utf8Body) check(chunk []byte, end bool) int64 {
	if len(b.tail) > 0 { // finish the character the last chunk began
		k := min(utf8.UTFMax-len(b.tail), len(chunk))
		head := append(b.tail, chunk[:k]...)
		if !utf8.FullRune(head) && !end {
			b.tail = head
			return -1
		}
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size <= 1 {
			return b.seen
		}
		chunk = chunk[size-len(b.tail):]
		b.seen += int64(size)
		b.tail = b.tail[:0]
	}
	cut := len(chunk) // where an unfinished last character begins
	for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(chunk[i]) {
			if !utf8.FullRune(chunk[i:]) {
				cut = i
			}
			break
		}
	}
	if end {
		cut = len(chunk)
	}
	if !utf8.Valid(chunk[:cut]) {
		return b.seen + int64(firstNotUTF8(chunk[:cut]))
	}
	b.seen += int64(cut)
	b.tail = append(b.tail, chunk[cut:]...)
	return -1
}
