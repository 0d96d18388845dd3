package rest

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/gridvenue/venue/runtime"
)

type statusOutput struct {
	Body *runtime.Status
}

func (s *Server) registerStatus() {
	op := s.op("get-status", http.MethodGet, "/api/v1/status", "Describe the venue", "Status")
	op.Description = "The venue's DID, base URL, version and counts of assets, users, catalog operations and the caller's jobs. " +
		"The counts of assets, users and jobs may be a few seconds old: each is reused for 20 times as long as it took to count, " +
		"at least a second, so that polling status (as a health check) stays cheap however much the venue holds."
	huma.Register(s.api, op, func(ctx context.Context, _ *struct{}) (*statusOutput, error) {
		st, err := s.e.Status(ctx)
		if err != nil {
			return nil, toAPI(err)
		}
		st.Stats.Ops += len(s.bridgedOps(ctx)) // the caller's bridged operations are listed too
		return &statusOutput{Body: st}, nil
	})
}
