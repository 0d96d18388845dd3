package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
	"github.com/gridvenue/venue/sql/sqltest"
)

// TestREST_JobRetention: a venue started with jobRetention deletes the
// records of jobs that ended longer ago, and keeps the rest; without it, the
// same old record stays readable.
func TestREST_JobRetention(t *testing.T) {
	for _, st := range sqltest.Stores(t) {
		t.Run(st.Name, func(t *testing.T) {
			store := st.DSN
			if store == "" {
				store = t.TempDir() + "/venue.db"
			}
			yes := true
			sameURL := func(c *Config) { c.URL, c.TestOps = "http://venue.test", &yes } // the anonymous DID derives from it
			m := MustRunMain(t, store, sameURL)
			var recent struct{ ID, Caller string }
			r := newClient(m).do(t, "POST", "/api/v1/invoke", `{"operation": "v/test/ops/echo", "input": {"n": 1}, "wait": true}`)
			if r.status != http.StatusCreated {
				t.Fatalf("invoke: %d %s", r.status, r.body)
			}
			r.json(t, &recent)
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			old := writeOldJob(t, store, recent.Caller, 3*24*time.Hour)

			m = MustRunMain(t, store, sameURL)
			c := newClient(m)
			if r := c.do(t, "GET", "/api/v1/jobs/"+old.String(), nil); r.status != http.StatusOK {
				t.Fatalf("without a retention, the old job: %d %s", r.status, r.body)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}

			m = MustRunMain(t, store, sameURL, func(c *Config) { c.JobRetention = "2d" })
			c = newClient(m)
			eventually(t, "the old job is pruned", func() bool {
				return c.do(t, "GET", "/api/v1/jobs/"+old.String(), nil).status == http.StatusNotFound
			})
			if r := c.do(t, "GET", "/api/v1/jobs/"+recent.ID, nil); r.status != http.StatusOK {
				t.Fatalf("the recent job: %d %s", r.status, r.body)
			}
		})
	}
}

// writeOldJob stores, straight into the venue's store, the record of an
// echo job of owner that ended age ago, with an id of that time as the
// venue's ids have.
func writeOldJob(t *testing.T, store, owner string, age time.Duration) venue.JobID {
	t.Helper()
	s, err := sql.Open(context.Background(), store, sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms := time.Now().Add(-age).UnixMilli()
	id := venue.JobIDAt(ms, 1)
	rec := &venue.Job{ID: id, Status: venue.StatusComplete, Created: ms, Updated: ms, Operation: "v/test/ops/echo",
		Caller: owner, Version: 3, Output: []byte(`{"n":0}`)}
	row := runtime.JobRow{ID: id, Owner: owner, Status: rec.Status, Version: 3, Created: ms, Updated: ms, Record: rec.AppendJSON(nil)}
	if _, err := s.WriteJobs(context.Background(), []runtime.JobRow{row}); err != nil {
		t.Fatal(err)
	}
	return id
}
