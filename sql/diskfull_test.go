package sql

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	venue "github.com/gridvenue/venue"
	"github.com/lib/pq"
)

// TestWrap_DiskFull: a store whose disk is full refuses writes as
// unavailable (503, saying so), not as an internal error: secrets, asset
// metadata and job deletes answered 500 "Internal error", and the job
// writer gave up the ends of stored jobs after a few tries, so that the
// next start failed jobs that had completed.
func TestWrap_DiskFull(t *testing.T) {
	for _, err := range []error{fmt.Errorf("write: %w", syscall.ENOSPC), &pq.Error{Code: "53100"}} {
		if got := wrap(t.Context(), err, "put secret"); venue.ErrorCode(got) != venue.EUNAVAILABLE || !errors.Is(got, err) {
			t.Fatalf("%v: %v, want EUNAVAILABLE with its cause", err, got)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "venue.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pages int
	if err := s.w.GetContext(ctx, &pages, "PRAGMA page_count"); err != nil {
		t.Fatal(err)
	}
	// SQLite's max_page_count fails a write past it with SQLITE_FULL, as a
	// full disk does.
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+2)); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 64<<10)
	for i := range 100 {
		err = s.PutSecret(ctx, "did:key:alice", fmt.Sprintf("S%d", i), big, 1, 0)
		if err != nil {
			break
		}
	}
	if venue.ErrorCode(err) != venue.EUNAVAILABLE || !strings.Contains(venue.ErrorMessage(err), "out of disk space") {
		t.Fatalf("a write on a full store: %v (code %s), want EUNAVAILABLE saying the disk is full", err, venue.ErrorCode(err))
	}
	if !strings.Contains(err.Error(), "(13)") {
		t.Fatalf("the store's own words left the chain: %v", err)
	}
}

// TestOpen_ForeignWALHint: a store whose -wal and -shm files another user
// left (a venue once run as root) fails to open with SQLite's bare "unable
// to open database file (14)"; the error says what to make writable.
func TestOpen_ForeignWALHint(t *testing.T) {
	cant := errors.New("unable to open database file (14)")
	if got := readonlyHint(cant, "/srv/venue"); !errors.Is(got, cant) || !strings.Contains(got.Error(), "-wal and -shm files in it") {
		t.Fatalf("hint: %v", got)
	}
}
