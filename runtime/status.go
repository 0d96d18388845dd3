package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// Stats counts what the venue holds.
type Stats struct {
	Assets   int `json:"assets"`
	Users    int `json:"users"`
	Ops      int `json:"ops"`
	UserJobs int `json:"userJobs"` // the caller's own jobs
}

// Status describes the venue.
type Status struct {
	DID     string `json:"did"`
	URL     string `json:"url"`
	Name    string `json:"name"`
	Version string `json:"version"`
	Status  string `json:"status"`
	TS      int64  `json:"ts"`
	Stats   Stats  `json:"stats"`
}

// Status reports the venue's identity and counts.
func (e *Engine) Status(ctx context.Context) (*Status, error) {
	_, assets, err := e.store.ListAssets(ctx, 0, 0)
	if err != nil {
		return nil, err
	}
	users, err := e.store.CountUsers(ctx)
	if err != nil {
		return nil, err
	}
	s := &Status{DID: e.id.DID, URL: e.id.BaseURL, Name: e.cfg.Name, Version: e.cfg.Version,
		Status: "OK", TS: e.ms(), Stats: Stats{Assets: assets, Users: users, Ops: len(e.cat.ordered)}}
	if c, ok := venue.CallerFrom(ctx); ok {
		_, s.Stats.UserJobs, err = e.store.ListJobs(ctx, c.DID, 0, 0, false)
	}
	return s, err
}

// KnownUser reports whether did has used the venue.
func (e *Engine) KnownUser(ctx context.Context, did string) (bool, error) {
	return e.store.HasUser(ctx, did)
}

// Name returns the venue's name.
func (e *Engine) Name() string { return e.cfg.Name }
