package rest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteRange is the part of some content a Range field asks for.
type byteRange struct{ start, length int64 }

// contentRange is the Content-Range of r within content of size bytes.
func (r byteRange) contentRange(size int64) string {
	return fmt.Sprintf("bytes %d-%d/%d", r.start, r.start+r.length-1, size)
}

// rangeOf reads a Range field (RFC 9110 section 14.2) against content of
// size bytes. whole is true when the answer is all of the content: no
// field, a unit other than bytes (which the RFC says to ignore), or more
// than one range, which the RFC lets a server ignore and which no
// downloader resuming or a media player seeking asks for. A non-nil error
// is the message of a 416: a range that is malformed or lies past the end.
func rangeOf(field string, size int64) (r byteRange, whole bool, err error) {
	unit, set, ok := strings.Cut(field, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return byteRange{}, true, nil
	}
	var specs []string
	for spec := range strings.SplitSeq(set, ",") {
		if spec = strings.Trim(spec, " \t"); spec != "" {
			specs = append(specs, spec)
		}
	}
	switch len(specs) {
	case 0:
		return byteRange{}, false, fmt.Errorf("Range %q names no range: send bytes=first-last, bytes=first- or bytes=-count", clipPath(field))
	case 1:
		r, err := oneRange(specs[0], size)
		return r, false, err
	}
	return byteRange{}, true, nil
}

// oneRange reads first-last, first- or -count.
func oneRange(spec string, size int64) (byteRange, error) {
	first, last, ok := strings.Cut(spec, "-")
	if !ok || !digits(last) && last != "" || !digits(first) && first != "" || first == "" && last == "" {
		return byteRange{}, fmt.Errorf("Range %q is malformed: send bytes=first-last, bytes=first- or bytes=-count, in decimal digits", clipPath(spec))
	}
	if first == "" {
		n := atoi(last)
		if n == 0 || size == 0 {
			return byteRange{}, fmt.Errorf("Range bytes=-%s selects no byte: the content has %d bytes; ask without Range for all of it", clipPath(last), size)
		}
		n = min(n, size)
		return byteRange{start: size - n, length: n}, nil
	}
	start, end := atoi(first), int64(math.MaxInt64)
	if last != "" {
		if end = atoi(last); end < start {
			return byteRange{}, fmt.Errorf("Range bytes=%s ends before it starts", clipPath(spec))
		}
	}
	if size == 0 {
		return byteRange{}, fmt.Errorf("Range bytes=%s asks for part of empty content: ask without Range", clipPath(spec))
	}
	if start >= size {
		return byteRange{}, fmt.Errorf("Range bytes=%s starts past the end: the content has %d bytes (the last is byte %d)", clipPath(spec), size, size-1)
	}
	end = min(end, size-1)
	return byteRange{start: start, length: end - start + 1}, nil
}

// digits reports whether s is a non-empty run of ASCII digits (strconv
// would also take a sign).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// atoi reads digits, taking a number past 64 bits as the largest there is:
// as a byte offset it lies past any content's end either way.
func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.MaxInt64
	}
	return n
}
