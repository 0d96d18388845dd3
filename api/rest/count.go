package rest

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/gridvenue/venue/runtime"
)

// CountValuesInput names a lattice path and, optionally, a field to group by.
type CountValuesInput struct {
	Path    string `query:"path" required:"true" minLength:"1" doc:"Lattice path of a map or vector, e.g. j or w/notes" example:"j"`
	GroupBy string `query:"groupBy" maxLength:"1024" doc:"Count the entries (a map's values, a vector's elements) by the value of this field, or of a slash path of fields such as meta/kind" example:"status"`
}

// CountValuesOutput is the count.
type CountValuesOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         *runtime.CountResult
}

// countDoc describes count and aggregate, which are one operation under two
// names: the reference venue's clients call both.
const countDoc = "Counts the keys of a map or the elements of a vector (j and a from the store's totals). " +
	"With groupBy, also counts the entries by that field's value: a string as itself, anything else as its JSON text (\"3\", \"true\"), " +
	"entries without the field (or not objects) under \"null\"; at most 1000 groups, and j or a only while they hold at most 1000 entries, " +
	"except j by status, which the store counts however many jobs there are. " +
	"An absent path or a scalar is {\"exists\": false}. /values/count and /values/aggregate are the same."

func (s *Server) registerCount() {
	for _, r := range []struct{ id, path, summary string }{
		{"count-values", "/api/v1/values/count", "Count the entries of a map or vector"},
		{"aggregate-values", "/api/v1/values/aggregate", "Count the entries of a map or vector, grouped by a field"},
	} {
		op := s.op(r.id, http.MethodGet, r.path, r.summary, "Lattice")
		op.Description = countDoc
		huma.Register(s.api, s.documentErrors(op, map[string]string{"400": "A malformed path or groupBy, or too many entries or groups to group", "403": foreignRead}), s.countValues)
	}
}

func (s *Server) countValues(ctx context.Context, in *CountValuesInput) (*CountValuesOutput, error) {
	res, err := s.e.Count(ctx, in.Path, in.GroupBy)
	if err != nil {
		return nil, toAPI(err)
	}
	return &CountValuesOutput{CacheControl: noStore, Body: res}, nil
}
