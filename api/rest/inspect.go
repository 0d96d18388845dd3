package rest

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/gridvenue/venue/ops/preview"
	"github.com/gridvenue/venue/runtime"
)

// InspectValuesInput names the paths to preview and how.
type InspectValuesInput struct {
	Paths   []string `query:"path,explode" required:"true" minItems:"1" maxItems:"1000" doc:"Lattice path to preview; repeat the parameter for several (path=w/a&path=w/b), at most 1000: a comma belongs to the path. A path given again is read once and previewed alike on each of its lines" example:"w/notes"`
	Budget  int      `query:"budget" minimum:"0" default:"500" doc:"Bytes of preview text for all the paths together, shared equally (at least 10 each); 0 means the default"`
	Compact bool     `query:"compact" doc:"No spaces after ':' and ','"`
}

// InspectValuesOutput is the preview.
type InspectValuesOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         struct {
		Result string `json:"result" doc:"Annotated JSON5: the value's shape, with cuts marked … and counted in /* comments */; one line a path, each starting with its path, when several are given" example:"{todo: [\"test\", \"ship\"]}"`
	}
}

func (s *Server) registerInspect() {
	op := s.op("inspect-values", http.MethodGet, "/api/v1/values/inspect", "Preview lattice values", "Lattice")
	op.Description = "A job-free core:inspect: the same preview text the operation gives for the same lattice (with paths as a list when " +
		"several are given), within a budget of bytes. An absent path previews as /* absent */."
	huma.Register(s.api, s.documentErrors(op, map[string]string{"400": "A malformed path, or a negative budget", "403": foreignRead}), s.inspectValues)
}

func (s *Server) inspectValues(ctx context.Context, in *InspectValuesInput) (*InspectValuesOutput, error) {
	budget := in.Budget
	if budget == 0 {
		budget = preview.DefaultBudget // as core:inspect reads it, and limit and maxSize are read
	}
	text, err := preview.Inspect(ctx, engineReader{s.e}, in.Paths,
		preview.Options{Budget: max(budget, preview.MinBudget), Compact: in.Compact, Label: len(in.Paths) > 1})
	if err != nil {
		return nil, toAPI(err)
	}
	out := &InspectValuesOutput{CacheControl: noStore}
	out.Body.Result = text
	return out, nil
}

// engineReader reads the lattice for package preview as the host's
// lattice.read and lattice.list do for core:inspect: through the engine,
// as the request's caller.
type engineReader struct{ e *runtime.Engine }

func (r engineReader) Read(ctx context.Context, path string, maxSize int) (preview.ReadResult, error) {
	res, err := r.e.Read(ctx, path, maxSize)
	if err != nil {
		return preview.ReadResult{}, err
	}
	return preview.ReadResult{Exists: res.Exists, Value: res.Value, Truncated: res.Truncated,
		Type: res.Type, Size: max(res.Size, res.ValueBytes)}, nil
}

func (r engineReader) Keys(ctx context.Context, path string, limit int) (int, []string, error) {
	l, err := r.e.List(ctx, path, 0, limit)
	if err != nil {
		return 0, nil, err
	}
	return l.Count, l.Keys, nil
}
