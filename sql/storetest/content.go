package storetest

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// upload writes data in uneven pieces, as a network body arrives. Each
// piece of content has an uploader of its own, so that the suite's
// uploads together do not reach the bound on one user's assets.
func upload(t *testing.T, s runtime.Store, data []byte) runtime.ContentUpload {
	t.Helper()
	sum := sha256.Sum256(data)
	u, err := s.NewContent(t.Context(), sum, fmt.Sprintf("did:key:z%x", sum[:8]))
	if err != nil {
		t.Fatal(err)
	}
	for rest, step := data, 1; len(rest) > 0; step = step*7 + 3 {
		k := min(step%200_000+1, len(rest))
		if n, err := u.Write(rest[:k]); err != nil || n != k {
			t.Fatalf("Write = %d, %v; want %d", n, err, k)
		}
		rest = rest[k:]
	}
	return u
}

// readContent reads stored content through a small buffer.
func readContent(t *testing.T, s runtime.Store, sum [32]byte) ([]byte, int64) {
	t.Helper()
	r, size, err := s.Content(t.Context(), sum)
	if err != nil {
		t.Fatalf("Content: %v", err)
	}
	defer r.Close()
	var got bytes.Buffer
	if _, err := io.CopyBuffer(&got, struct{ io.Reader }{r}, make([]byte, 4096)); err != nil {
		t.Fatalf("read content: %v", err)
	}
	return got.Bytes(), size
}

func testContent(t *testing.T, s runtime.Store) {
	for _, tc := range []struct {
		name string
		size int
	}{
		{"empty content round-trips", 0},
		{"small content round-trips", 1000},
		{"content of whole 256 KiB pieces round-trips", 512 << 10},
		{"multi-chunk content over 1 MiB round-trips", 1<<20 + 300_007},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := randomBytes(tc.size)
			if err := upload(t, s, data).Commit(t.Context()); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			got, size := readContent(t, s, sha256.Sum256(data))
			if size != int64(len(data)) || !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes (size %d), want the %d written", len(got), size, len(data))
			}
		})
	}
	testContentSeek(t, s)
	testContentLifecycle(t, s)
}

// testContentSeek reads content from offsets around the 256 KiB pieces
// the SQL store keeps it in, as a download that resumes would.
func testContentSeek(t *testing.T, s runtime.Store) {
	data := randomBytes(3<<18 + 1234)
	if err := upload(t, s, data).Commit(t.Context()); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	size := int64(len(data))
	for _, tc := range []struct {
		name   string
		offset int64
		whence int
		want   int64 // the offset reads start at
	}{
		{"from the start", 0, io.SeekStart, 0},
		{"inside the first piece", 1, io.SeekStart, 1},
		{"the last byte of a piece", 1<<18 - 1, io.SeekStart, 1<<18 - 1},
		{"the first byte of a piece", 1 << 18, io.SeekStart, 1 << 18},
		{"inside the last piece", 3<<18 + 17, io.SeekStart, 3<<18 + 17},
		{"the last byte", -1, io.SeekEnd, size - 1},
		{"the end", 0, io.SeekEnd, size},
		{"past the end", size + 10, io.SeekStart, size + 10},
	} {
		t.Run("seek "+tc.name, func(t *testing.T) {
			r, _, err := s.Content(t.Context(), sha256.Sum256(data))
			if err != nil {
				t.Fatalf("Content: %v", err)
			}
			defer r.Close()
			if at, err := r.Seek(tc.offset, tc.whence); at != tc.want || err != nil {
				t.Fatalf("Seek = %d, %v; want %d", at, err, tc.want)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data[min(tc.want, size):]) {
				t.Fatalf("read %d bytes (%v) after the seek, want the last %d", len(got), err, size-min(tc.want, size))
			}
		})
	}
	t.Run("seek back after reading part", func(t *testing.T) {
		r, _, err := s.Content(t.Context(), sha256.Sum256(data))
		if err != nil {
			t.Fatalf("Content: %v", err)
		}
		defer r.Close()
		if _, err := io.ReadFull(r, make([]byte, 1<<18+5)); err != nil {
			t.Fatal(err)
		}
		if at, err := r.Seek(-10, io.SeekCurrent); at != 1<<18-5 || err != nil {
			t.Fatalf("Seek = %d, %v; want %d", at, err, 1<<18-5)
		}
		got := make([]byte, 20)
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, data[1<<18-5:1<<18+15]) {
			t.Fatalf("read %x (%v) after seeking back", got, err)
		}
		if _, err := r.Seek(-1, io.SeekStart); err == nil {
			t.Fatal("a seek before the start succeeded")
		}
	})
}

func testContentLifecycle(t *testing.T, s runtime.Store) {
	t.Run("uncommitted content is not found", func(t *testing.T) {
		data := randomBytes(5000)
		u := upload(t, s, data)
		_, _, err := s.Content(t.Context(), sha256.Sum256(data))
		wantCode(t, err, venue.ENOTFOUND)
		if err := u.Abort(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("aborted content is not found and can be uploaded again", func(t *testing.T) {
		data := randomBytes(300_000)
		if err := upload(t, s, data).Abort(t.Context()); err != nil {
			t.Fatalf("Abort: %v", err)
		}
		_, _, err := s.Content(t.Context(), sha256.Sum256(data))
		wantCode(t, err, venue.ENOTFOUND)
		if err := upload(t, s, data).Commit(t.Context()); err != nil {
			t.Fatalf("Commit after abort: %v", err)
		}
		if got, _ := readContent(t, s, sha256.Sum256(data)); !bytes.Equal(got, data) {
			t.Fatal("content differs after re-upload")
		}
	})
	t.Run("committing stored content again keeps it", func(t *testing.T) {
		data := randomBytes(400_000)
		first, second := upload(t, s, data), upload(t, s, data)
		if err := first.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := second.Commit(t.Context()); err != nil {
			t.Fatalf("second Commit: %v", err)
		}
		if got, _ := readContent(t, s, sha256.Sum256(data)); !bytes.Equal(got, data) {
			t.Fatal("content differs after second commit")
		}
	})
	t.Run("write after commit fails", func(t *testing.T) {
		u := upload(t, s, []byte("done"))
		if err := u.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, err := u.Write([]byte("more")); err == nil {
			t.Fatal("Write after Commit succeeded")
		}
	})
	t.Run("unknown content is not found", func(t *testing.T) {
		_, _, err := s.Content(t.Context(), sha256.Sum256([]byte("never stored")))
		wantCode(t, err, venue.ENOTFOUND)
	})
}
