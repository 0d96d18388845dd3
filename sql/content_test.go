package sql

import (
	"crypto/sha256"
	"testing"

	venue "github.com/gridvenue/venue"
)

// staged counts the rows of the content tables.
func staged(t *testing.T, s *Store) (uploads, chunks, content int) {
	t.Helper()
	for _, c := range []struct {
		n     *int
		table string
	}{{&uploads, "content_uploads"}, {&chunks, "content_chunks"}, {&content, "content"}} {
		if err := s.w.GetContext(t.Context(), c.n, "SELECT count(*) FROM "+c.table); err != nil {
			t.Fatal(err)
		}
	}
	return uploads, chunks, content
}

func TestContent_Staging(t *testing.T) {
	data := make([]byte, 600<<10) // three chunks
	sum := sha256.Sum256(data)
	for _, o := range openers(t) {
		t.Run(o.name, func(t *testing.T) {
			for _, tc := range []struct {
				name                    string
				run                     func(s *Store) error
				uploads, chunks, stored int
			}{
				{"abort leaves no rows", func(s *Store) error {
					u, _ := s.NewContent(t.Context(), sum, "did:key:uploader")
					u.Write(data)
					return u.Abort(t.Context())
				}, 0, 0, 0},
				{"commit of mismatched bytes is invalid and leaves no rows", func(s *Store) error {
					u, _ := s.NewContent(t.Context(), sha256.Sum256([]byte("other")), "did:key:uploader")
					u.Write(data)
					if err := u.Commit(t.Context()); venue.ErrorCode(err) != venue.EINVALID {
						t.Errorf("Commit = %v, want EINVALID", err)
					}
					return nil
				}, 0, 0, 0},
				{"second commit of stored content drops its copy", func(s *Store) error {
					for range 2 {
						u, _ := s.NewContent(t.Context(), sum, "did:key:uploader")
						u.Write(data)
						if err := u.Commit(t.Context()); err != nil {
							return err
						}
					}
					return nil
				}, 0, 3, 1},
			} {
				t.Run(tc.name, func(t *testing.T) {
					s := o.open(t)
					if err := tc.run(s); err != nil {
						t.Fatal(err)
					}
					if u, c, n := staged(t, s); u != tc.uploads || c != tc.chunks || n != tc.stored {
						t.Fatalf("uploads, chunks, content = %d, %d, %d; want %d, %d, %d", u, c, n, tc.uploads, tc.chunks, tc.stored)
					}
				})
			}
		})
	}
}

func TestSQLite_OpenDropsStagingOfCrashedUploads(t *testing.T) {
	dsn := t.TempDir() + "/venue.db"
	s, err := Open(t.Context(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := s.NewContent(t.Context(), [32]byte{}, "did:key:uploader")
	u.Write(make([]byte, 300<<10)) // one chunk staged, then the process "dies"
	s.Close()
	s = mustOpen(t, dsn, Options{})
	if u, c, _ := staged(t, s); u != 0 || c != 0 {
		t.Fatalf("staging after reopen: %d uploads, %d chunks", u, c)
	}
}
