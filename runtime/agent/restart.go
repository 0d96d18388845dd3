package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
)

// runningPath is where the venue notes the agents with a run in flight, in
// its own lattice (under g/, which no ordinary write reaches): after a
// restart those are the agents a run may have been cut short for. The
// lattice is per owner, and this index is how the venue finds them again
// without asking every owner. It is best effort: an agent it misses waits
// for its next wake.
const runningPath = "g/running"

type runningEntry struct {
	Owner   string `json:"owner"`
	AgentID string `json:"agentId"`
}

func runningKey(owner, id string) string {
	h := sha256.Sum256([]byte(owner + "\x00" + id))
	return hex.EncodeToString(h[:16])
}

// venueCtx acts as the venue itself, in its own lattice.
func venueCtx(eng *runtime.Engine) context.Context {
	return venue.WithCaller(context.Background(), venue.Caller{DID: eng.Identity().DID})
}

// note records (running true) or forgets that agent id of owner has a run
// in flight. A note left by a crash or a shutdown is what Start finds; a
// failed write only delays an agent until its next wake.
func (a *Agents) note(eng *runtime.Engine, owner, id string, running bool) {
	v, _ := json.Marshal(runningEntry{Owner: owner, AgentID: id})
	eng.UpdateTree(venueCtx(eng), runningPath+"/"+runningKey(owner, id), runtime.Fold{}, func(runtime.Tree) (map[string]json.RawMessage, error) {
		if running {
			return map[string]json.RawMessage{"": v}, nil
		}
		return map[string]json.RawMessage{}, nil
	})
}

// Start takes up what the venue's previous run left: each agent noted
// running is woken if it has work, so its queued tasks, whose jobs the
// restart left open, end with its results. On a single-node store such an
// agent found RUNNING is RUNNING no longer (nothing runs it now); on a
// shared one another node may be running it, and it is taken over only
// once its lease is old.
// An entry that does not decode is skipped: the venue starts whatever the
// index holds.
func (a *Agents) Start(ctx context.Context, eng *runtime.Engine) error {
	if !a.cfg.SingleNode {
		go a.sweep(eng)
	}
	return a.takeUp(ctx, eng)
}

// sweep looks at the index again every half LeaseTimeout on a shared store:
// an agent left RUNNING by a node that died (SIGKILL, a lost machine) is
// taken over only once its lease is old, which is after Start looked. A
// live run renews its lease (see renew), so it is never found stale.
func (a *Agents) sweep(eng *runtime.Engine) {
	t := time.NewTicker(a.cfg.LeaseTimeout / 2)
	defer t.Stop()
	for {
		select {
		case <-a.closed:
			return
		case <-t.C:
			a.takeUp(context.Background(), eng) //nolint:errcheck // a store that failed is tried again at the next tick
		}
	}
}

// takeUp wakes each agent noted running (see Start).
func (a *Agents) takeUp(ctx context.Context, eng *runtime.Engine) error {
	res, err := eng.Read(venue.WithCaller(ctx, venue.Caller{DID: eng.Identity().DID}), runningPath, 1<<30)
	if err != nil || !res.Exists {
		return err
	}
	var entries map[string]json.RawMessage
	json.Unmarshal(res.Value, &entries)
	for _, raw := range entries {
		var e runningEntry
		if json.Unmarshal(raw, &e) == nil && e.Owner != "" && checkAgentID("agentId", e.AgentID) == nil {
			a.restart(eng, e)
		}
	}
	return nil
}

// restart takes up one agent noted running.
func (a *Agents) restart(eng *runtime.Engine, e runningEntry) {
	octx := ownerCtx(venue.Caller{DID: e.Owner, Anonymous: e.Owner == eng.PublicCaller().DID})
	status := ""
	update(octx, eng, e.AgentID, scope{}, func(r *record) (*record, error) {
		if r == nil {
			return nil, nil
		}
		if status = r.Status; status != Running || !a.cfg.SingleNode {
			return nil, nil
		}
		r.Status, r.Lease, r.Updated, status = Sleeping, 0, a.ms(), Sleeping
		return r, nil
	})
	// Still RUNNING (on a shared store) is maybe another node's run: it
	// is taken over only if its lease is old, and its note stays.
	if r, err := a.wake(octx, eng, e.AgentID, false); (err != nil || r == nil) && status != Running {
		a.note(eng, e.Owner, e.AgentID, false)
	}
}

// Close tells the agents the venue is shutting down: a run whose
// transition the shutdown stops is no failure. Its agent goes back to
// SLEEPING with its work, noted for Start to take up after the restart,
// instead of being suspended.
func (a *Agents) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.closing {
		a.closing = true
		close(a.closed)
	}
}

// Drain waits up to d for the runs in flight to end, once Close has been
// called and the engine has stopped their transitions.
func (a *Agents) Drain(d time.Duration) {
	a.mu.Lock()
	var done []chan struct{}
	for _, r := range a.runs {
		done = append(done, r.done)
	}
	a.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range done {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

func (a *Agents) isClosing() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closing
}
