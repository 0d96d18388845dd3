package sql

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

func TestNotify_Payloads(t *testing.T) {
	s := &Store{node: "node-1"}
	for _, tc := range []struct {
		name     string
		notes    int
		payloads int
	}{
		{"one note fits one payload", 1, 1},
		{"many notes share a payload", 40, 1},
		{"a large batch splits into payloads under the limit", 300, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes []runtime.JobNote
			for i := range tc.notes {
				notes = append(notes, runtime.JobNote{Kind: "job", ID: venue.JobID{byte(i >> 8), byte(i)},
					Status: venue.StatusInputRequired, Version: 1 << 62})
			}
			var got []runtime.JobNote
			ps := s.payloads(notes)
			for _, p := range ps {
				if len(p) >= 8000 {
					t.Fatalf("payload of %d bytes", len(p))
				}
				var dec notePayload
				if err := json.Unmarshal([]byte(p), &dec); err != nil || dec.Node != "node-1" {
					t.Fatalf("payload %q: %v", p, err)
				}
				for _, n := range dec.Notes {
					got = append(got, runtime.JobNote(n))
				}
			}
			if len(ps) != tc.payloads || len(got) != tc.notes || got[len(got)-1].ID != notes[len(notes)-1].ID {
				t.Fatalf("%d payloads with %d notes, want %d with %d", len(ps), len(got), tc.payloads, tc.notes)
			}
		})
	}
}

func TestNotify_ListenGivesUpWithContext(t *testing.T) {
	s := &Store{d: postgresDialect(), dsn: "postgres://127.0.0.1:1/none?sslmode=disable",
		log: slog.New(slog.DiscardHandler), done: make(chan struct{})}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	err := s.ListenJobs(ctx, func(runtime.JobNote) {})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ListenJobs = %v, want deadline exceeded", err)
	}
}
