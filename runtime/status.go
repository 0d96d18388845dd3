package runtime

import (
	"context"

	venue "github.com/gridvenue/venue"
)

// Stats counts what the venue holds. The counts of rows (all but Ops) may
// be some seconds old: see recounts.
type Stats struct {
	Assets   int `json:"assets" doc:"Assets registered on the venue; may be a few seconds old"`
	Users    int `json:"users" doc:"Callers that have used the venue; may be a few seconds old"`
	Ops      int `json:"ops" doc:"Operations in the catalog, the caller's bridged MCP tools included"`
	UserJobs int `json:"userJobs" doc:"The caller's own jobs (everyone without a token shares one caller); may be a few seconds old"`
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

// Status reports the venue's identity and counts. A count is reused for
// 20 times as long as it took, at least a second, so that polling /status
// costs little however many rows there are.
func (e *Engine) Status(ctx context.Context) (*Status, error) {
	assets, err := e.counts.get(ctx, "assets", func(ctx context.Context) (int, error) {
		_, n, err := e.store.ListAssets(ctx, 0, 0)
		return n, err
	})
	if err != nil {
		return nil, err
	}
	users, err := e.counts.get(ctx, "users", e.store.CountUsers)
	if err != nil {
		return nil, err
	}
	s := &Status{DID: e.id.DID, URL: e.id.BaseURL, Name: e.cfg.Name, Version: e.cfg.Version,
		Status: "OK", TS: e.ms(), Stats: Stats{Assets: assets, Users: users, Ops: len(e.cat.ordered)}}
	if c, ok := venue.CallerFrom(ctx); ok {
		s.Stats.UserJobs, err = e.counts.get(ctx, "jobs of "+c.DID, func(ctx context.Context) (int, error) {
			_, n, err := e.store.ListJobs(ctx, c.DID, 0, 0, false)
			return n, err
		})
	}
	return s, err
}

// KnownUser reports whether did has used the venue.
func (e *Engine) KnownUser(ctx context.Context, did string) (bool, error) {
	return e.store.HasUser(ctx, did)
}

// Name returns the venue's name.
func (e *Engine) Name() string { return e.cfg.Name }

// Version returns the venue's version, as status reports it.
func (e *Engine) Version() string { return e.cfg.Version }
