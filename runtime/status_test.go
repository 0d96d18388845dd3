package runtime_test

import (
	"context"
	"crypto/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/gridvenue/venue/sql"
)

// countsStore counts the store's counts that /status asks for.
type countsStore struct {
	*sql.Store
	jobs, users, assets atomic.Int64
}

func (c *countsStore) ListJobs(ctx context.Context, owner string, offset, limit int, withRecords bool) ([]runtime.JobRow, int, error) {
	c.jobs.Add(1)
	return c.Store.ListJobs(ctx, owner, offset, limit, withRecords)
}

func (c *countsStore) CountUsers(ctx context.Context) (int, error) {
	c.users.Add(1)
	return c.Store.CountUsers(ctx)
}

func (c *countsStore) ListAssets(ctx context.Context, offset, limit int) ([]venue.AssetID, int, error) {
	c.assets.Add(1)
	return c.Store.ListAssets(ctx, offset, limit)
}

// frozenClock moves only when told.
type frozenClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *frozenClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *frozenClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// writeDoneJobs stores n finished jobs of owner, as a venue would have.
func writeDoneJobs(t *testing.T, st runtime.Store, owner string, n int) {
	t.Helper()
	rows := make([]runtime.JobRow, n)
	for i := range rows {
		var id venue.JobID
		rand.Read(id[:])
		rec := &venue.Job{ID: id, Status: venue.StatusComplete, Created: 1, Updated: 2,
			Operation: "v/test/ops/echo", Caller: owner, Version: 3}
		rows[i] = runtime.JobRow{ID: rec.ID, Owner: owner, Status: rec.Status, Version: 3, Created: 1, Updated: 2, Record: rec.AppendJSON(nil)}
	}
	if _, err := st.WriteJobs(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
}

// TestEngine_StatusReusesCounts: /status polled by many callers at once
// counts each table once, not once a call, until its count has aged; a
// caller's jobs are counted apart from another's.
func TestEngine_StatusReusesCounts(t *testing.T) {
	st, err := sql.Open(context.Background(), "", sql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs := &countsStore{Store: st}
	clock := &frozenClock{t: time.Now()}
	e, err := runtime.New(context.Background(), runtime.Config{SingleNode: true}, runtime.Deps{Store: cs, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	alice := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:alice"})
	bob := venue.WithCaller(context.Background(), venue.Caller{DID: "did:key:bob"})
	writeDoneJobs(t, st, "did:key:alice", 3)
	for _, s := range []struct {
		name                    string
		before                  func()
		caller                  context.Context
		polls                   int
		wantJobs                int
		wantCounts, wantUsersAt int64 // ListJobs calls, and CountUsers (as ListAssets) calls
	}{
		{"40 polls at once count once", nil, alice, 40, 3, 1, 1},
		{"new jobs are not seen within the second", func() { writeDoneJobs(t, st, "did:key:alice", 2) }, alice, 10, 3, 1, 1},
		{"another caller's jobs are counted apart", nil, bob, 10, 0, 2, 1},
		{"a second later they are counted again", func() { clock.advance(time.Second) }, alice, 10, 5, 3, 2},
	} {
		if s.before != nil {
			s.before()
		}
		var wg sync.WaitGroup
		got := make([]int, s.polls)
		for i := range got {
			wg.Go(func() {
				status, err := e.Status(s.caller)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = status.Stats.UserJobs
			})
		}
		wg.Wait()
		for _, n := range got {
			if n != s.wantJobs {
				t.Fatalf("%s: userJobs %v, want %d", s.name, got, s.wantJobs)
			}
		}
		if cs.jobs.Load() != s.wantCounts || cs.users.Load() != s.wantUsersAt || cs.assets.Load() != s.wantUsersAt {
			t.Fatalf("%s: %d counts of jobs, %d of users, %d of assets; want %d, %d, %d", s.name,
				cs.jobs.Load(), cs.users.Load(), cs.assets.Load(), s.wantCounts, s.wantUsersAt, s.wantUsersAt)
		}
	}
}
