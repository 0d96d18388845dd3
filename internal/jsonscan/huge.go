package jsonscan

import (
	"bytes"
	"math"
	"strconv"
)

// maxDoubleExp10 is the largest power of ten below the largest double
// (about 1.8e308).
const maxDoubleExp10 = 308

// Huge returns the first number in b whose magnitude is past the largest
// double (about 1.8e308), such as 1e999, or "" if there is none. JSON
// allows it, but readers that decode numbers as doubles (encoding/json
// into any, Java's and .NET's readers) refuse the whole text for it, so a
// record holding one cannot be read by a client written in Go. A number
// too small for a double reads as 0 and is not reported. It reads b as
// JSON text without checking it.
func Huge(b []byte) string {
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case ch == '"':
			i = stringEnd(b, i+1)
		case ch == '-' || ch >= '0' && ch <= '9':
			j := i + 1
			for j < len(b) && numberByte(b[j]) {
				j++
			}
			if n := b[i:j]; mayOverflow(n) && overflows(n) {
				return string(n)
			}
			i = j - 1
		}
	}
	return ""
}

// stringEnd returns the index of the quote closing the string whose text
// begins at i, or len(b) if it is not closed.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

func numberByte(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-'
}

// mayOverflow is a cheap test that passes every number past a double's
// range, and few others: a number of k digits before its point and an
// exponent e is below 10^(k+e), so it overflows only if k+e > 308.
func mayOverflow(n []byte) bool {
	if n[0] == '-' {
		n = n[1:]
	}
	k := 0
	for k < len(n) && n[k] >= '0' && n[k] <= '9' {
		k++
	}
	at := bytes.IndexAny(n, "eE")
	if at < 0 {
		return k > maxDoubleExp10
	}
	exp, neg := 0, false
	for _, ch := range n[at+1:] {
		switch {
		case ch == '-':
			neg = true
		case ch >= '0' && ch <= '9' && exp < 1e9:
			exp = exp*10 + int(ch-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return k+exp > maxDoubleExp10
}

func overflows(n []byte) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err != nil && math.IsInf(f, 0)
}
