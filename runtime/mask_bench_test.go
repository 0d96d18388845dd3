package runtime

import (
	"math/rand"
	"strings"
	"testing"
)

// bigSecret is a value of n bytes drawn from letters and the characters
// URL, JSON and HTML encoders escape.
func bigSecret(r *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=!*()'&<>\""
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.Intn(len(chars))]
	}
	return string(b)
}

// BenchmarkMasker_BigSecrets registers 20 secrets of 64 KiB, as a job
// naming them in secretHeaders does, and masks an answer echoing none.
func BenchmarkMasker_BigSecrets(b *testing.B) {
	r := rand.New(rand.NewSource(11))
	var values []string
	for range 20 {
		values = append(values, bigSecret(r, 64<<10))
	}
	b.ReportAllocs()
	for b.Loop() {
		m := &masker{}
		for _, v := range values {
			m.add(v)
		}
		m.text("<html>Please log in</html>")
	}
}

// BenchmarkMasker_EchoedKey masks a 1 MB answer echoing a 3 KB key (a PEM
// key's size) in a few places.
func BenchmarkMasker_EchoedKey(b *testing.B) {
	r := rand.New(rand.NewSource(12))
	key := bigSecret(r, 3<<10)
	body := strings.Repeat("lorem ipsum dolor sit amet, "+key+" consectetur\n", 1<<20/(len(key)+40))
	b.ReportAllocs()
	for b.Loop() {
		m := &masker{}
		m.add(key)
		if strings.Contains(m.text(body), key[:64]) {
			b.Fatal("the key shows")
		}
	}
}
